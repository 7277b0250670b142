// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Several {@link CollPlugin}s of one test kit domain in this JVM, whose host is the test itself
 * (the kit's default host process): buffers are native memory the test allocates, and the plugins read and write
 * them with cross-memory attach on this process. Commands are sent with their cookie as the
 * framework context, and answers awaited by it. Owns the domain and the buffers; {@link #close}
 * frees all. Driven from the thread that built it.
 */
final class CollWorkers implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    final TestDomain domain;
    private final List<Memory> buffers = new ArrayList<>();
    private long nextCookie = 1;

    CollWorkers(int workers) {
        domain = PluginTestKit.plugin(CollPlugin::new).timeout(TIMEOUT).openDomain(workers);
    }

    /** One worker per member, in domain order: a Java plugin for each false, the C plugin at {@code so} for each true. */
    CollWorkers(java.nio.file.Path so, boolean... native_) {
        PluginTestKit.Builder[] members = new PluginTestKit.Builder[native_.length];
        for (int i = 0; i < members.length; i++) {
            members[i] =
                    (native_[i] ? PluginTestKit.plugin(so) : PluginTestKit.plugin(CollPlugin::new)).timeout(TIMEOUT);
        }
        domain = PluginTestKit.domain(members);
    }

    TestWorker worker(int i) {
        return domain.worker(i);
    }

    long cookie() {
        return nextCookie++;
    }

    /** A native buffer of {@code bytes} (at least 1), zeroed. */
    Memory buffer(long bytes) {
        Memory memory = new Memory(Math.max(1, bytes));
        memory.clear();
        buffers.add(memory);
        return memory;
    }

    static long address(Memory memory) {
        return Pointer.nativeValue(memory);
    }

    WorkerCommand send(int worker, CollCommand command) {
        return domain.worker(worker).send(command.cookie(), command.encode());
    }

    CollNotification await(int worker, WorkerCommand command) {
        WorkerNotification n = domain.worker(worker).awaitAnswer(command).notification();
        assertThat(n.status()).as("framework status").isEqualTo(UromStatus.SUCCESS);
        try {
            return CollNotification.decode(n.payload());
        } catch (CollProtocolException e) {
            throw new AssertionError("the answer does not decode: " + e.getMessage(), e);
        }
    }

    CollNotification call(int worker, CollCommand command) {
        return await(worker, send(worker, command));
    }

    /** Creates team {@code teamId} of workers {@code 0..size-1} (ranks in domain order) with these knobs; asserts success. */
    void createTeam(long teamId, int size, long chunk, long small, long timeoutMs) {
        List<CollNotification> answers = createTeamAnswers(teamId, size, chunk, small, timeoutMs);
        for (int r = 0; r < size; r++) {
            CollNotification.TeamCreateDone done = (CollNotification.TeamCreateDone) answers.get(r);
            assertThat(done.header().reasonValue())
                    .as("TEAM_CREATE on rank %d", r)
                    .isEqualTo(Reason.NONE);
            assertThat(done.header().status()).isZero();
            assertThat(done.rank()).isEqualTo(r);
            assertThat(done.size()).isEqualTo(size);
            assertThat(done.teamId()).isEqualTo(teamId);
        }
    }

    List<CollNotification> createTeamAnswers(long teamId, int size, long chunk, long small, long timeoutMs) {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            sent.add(send(r, CollCommand.TeamCreate.range(cookie(), teamId, size, r, 0, 1, chunk, small, timeoutMs)));
        }
        List<CollNotification> answers = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            answers.add(await(r, sent.get(r)));
        }
        return answers;
    }

    @Override
    public void close() {
        domain.close();
        buffers.forEach(Memory::close);
        buffers.clear();
    }
}
