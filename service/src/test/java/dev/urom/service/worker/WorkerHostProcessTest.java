// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.HostProcessFixture;
import dev.urom.nativebridge.testkit.HostProcessFixture.Answer;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real worker process (dumpable, so that the test reads its {@code /proc/PID/fd}) whose native
 * plugin asks {@code urom_worker_host_process} about its host connections: each open connection
 * holds one pidfd in the worker, which goes when the connection closes, and after that its id is
 * NOT_FOUND; a worker whose JVM cannot reach its connections' descriptors answers NOT_SUPPORTED and
 * says why once, at DEBUG.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerHostProcessTest {
    private static final long PLUGIN_ID = 0x4;
    private static final int SELF_PID = (int) ProcessHandle.current().pid();
    private static final String PIDFD = "anon_inode:[pidfd]";

    @TempDir
    static Path pluginDir;

    private static Path plugin;

    @TempDir
    Path dir;

    @RegisterExtension
    final WorkerProcesses workers = new WorkerProcesses();

    @BeforeAll
    static void compilePlugin() {
        plugin = HostProcessFixture.compile(pluginDir, "host_process.so");
    }

    private List<String> args() {
        ServiceAddress socket = ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock"));
        return WorkerProcess.args(socket, 4096, List.of("--dumpable", "true", plugin + ":" + PLUGIN_ID));
    }

    private static Answer ask(Connected host, long context, byte[] command) throws Exception {
        host.channel().send(0, new Command(PLUGIN_ID, context, command));
        Message message = host.channel().receive().message();
        assertThat(message).isInstanceOf(Notify.class);
        Notify notify = (Notify) message;
        assertThat(notify.status()).isEqualTo(UromStatus.SUCCESS);
        return HostProcessFixture.answer(notify.payload());
    }

    /** How many pidfds process {@code pid} holds. */
    private static long pidfds(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.filter(fd -> {
                        try {
                            return Files.readSymbolicLink(fd).toString().equals(PIDFD);
                        } catch (IOException e) {
                            return false; // closed meanwhile
                        }
                    })
                    .count();
        } catch (IOException e) {
            throw new AssertionError("cannot list the descriptors of worker " + pid + " (is it dumpable?): " + e, e);
        }
    }

    @Test
    void eachOpenConnectionHoldsOnePidfdUntilItClosesAndThenItsIdIsNotFound() throws Exception {
        WorkerProcess worker = workers.add(WorkerProcess.start(dir.resolve("log"), args()));
        long workerPid = worker.process.pid();
        Connected first = worker.connect();
        Connected second = worker.connect();

        for (Connected host : List.of(first, second)) {
            Answer answer = ask(host, 1, HostProcessFixture.self());
            assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(answer.pid()).as("the host is this test's JVM").isEqualTo(SELF_PID);
            assertThat(answer.alive()).isEqualTo(1);
            assertThat(answer.closed()).isTrue();
        }
        assertThat(pidfds(workerPid))
                .as("pidfds in the worker with two connections open")
                .isEqualTo(2);

        long firstId = first.hello().connectionId();
        first.channel().close();
        Await.until("the worker holds one pidfd", () -> pidfds(workerPid) == 1);
        assertThat(ask(second, 2, HostProcessFixture.command(HostProcessFixture.OTHER, firstId, 0, 0))
                        .status())
                .as("the closed connection")
                .isEqualTo(UromStatus.NOT_FOUND);
        assertThat(ask(
                                second,
                                3,
                                HostProcessFixture.command(
                                        HostProcessFixture.OTHER, second.hello().connectionId(), 0, 0))
                        .pid())
                .isEqualTo(SELF_PID);
    }

    @Test
    void aWorkerThatCannotReachItsConnectionsDescriptorsAnswersNotSupportedAndSaysWhyOnce() throws Exception {
        WorkerProcess worker = workers.add(WorkerProcess.startWithoutChannelExports(dir.resolve("log"), args()));
        Connected first = worker.connect();
        Connected second = worker.connect();

        assertThat(ask(first, 1, HostProcessFixture.self()).status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(ask(second, 1, HostProcessFixture.self()).status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(pidfds(worker.process.pid())).isZero();
        String why = "host connections have no host process: the JVM does not export sun.nio.ch";
        assertThat(worker.log().lines().filter(line -> line.contains(why)))
                .as("the worker's log")
                .hasSize(1)
                .allSatisfy(line -> assertThat(line).contains("DEBUG"));
    }
}
