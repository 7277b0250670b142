// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.spi.WorkerCommand;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * worker_coll.so in the test kit: a domain of instances in this process, whose host (for every
 * command) is this process unless the settings say otherwise, and helpers that send one command per rank and await every answer.
 * Host buffers are JNA Memory, addressed by their native addresses.
 */
final class NativeCollFixture implements AutoCloseable {
    static final Path SO = Path.of(System.getProperty("urom.coll.so", "target/worker_coll.so"));
    private static long nextCookie = 1000;

    final TestDomain domain;

    private NativeCollFixture(int workers, UnaryOperator<PluginTestKit.Builder> settings) {
        assertThat(Files.isRegularFile(SO)).as("%s is built", SO).isTrue();
        domain = settings.apply(PluginTestKit.plugin(SO).timeout(Duration.ofSeconds(30))).openDomain(workers);
    }

    static NativeCollFixture open(int workers) {
        return new NativeCollFixture(workers, UnaryOperator.identity());
    }

    /** A domain whose workers' host is what settings say (PluginTestKit.Builder.hostProcess, noHostProcess). */
    static NativeCollFixture open(int workers, UnaryOperator<PluginTestKit.Builder> settings) {
        return new NativeCollFixture(workers, settings);
    }

    static long cookie() {
        return nextCookie++;
    }

    TestWorker worker(int id) {
        return domain.worker(id);
    }

    /** Sends each worker its command (by domain id), then awaits every answer. */
    List<Coll.Answer> all(int[] workerIds, IntFunction<byte[]> commandOf) {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int i = 0; i < workerIds.length; i++) {
            sent.add(worker(workerIds[i]).send(commandOf.apply(i)));
        }
        List<Coll.Answer> answers = new ArrayList<>();
        for (int i = 0; i < workerIds.length; i++) {
            answers.add(Coll.Answer.of(worker(workerIds[i]).awaitAnswer(sent.get(i))));
        }
        return answers;
    }

    static int[] range(int n) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        return ids;
    }

    /** Creates team `teamId' over the given workers (rank i = workerIds[i]) as a list; every answer must be SUCCESS. */
    void team(int teamId, int[] workerIds, Coll.Knobs knobs) {
        long[] ids = new long[workerIds.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = workerIds[i];
        }
        List<Coll.Answer> answers = all(workerIds, rank -> Coll.teamList(cookie(), teamId, rank, ids, knobs));
        for (Coll.Answer a : answers) {
            a.isOk();
            assertThat(a.teamId()).isEqualTo(teamId);
        }
    }

    void team(int teamId, int size, Coll.Knobs knobs) {
        List<Coll.Answer> answers = all(range(size), rank -> Coll.teamRange(cookie(), teamId, size, rank, 0, 1, knobs));
        answers.forEach(Coll.Answer::isOk);
    }

    static Memory memory(long bytes) {
        Memory m = new Memory(Math.max(1, bytes));
        m.clear();
        return m;
    }

    static long address(Pointer p) {
        return Pointer.nativeValue(p);
    }

    @Override
    public void close() {
        domain.close();
    }
}
