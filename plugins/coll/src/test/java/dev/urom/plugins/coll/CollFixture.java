// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
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
import java.util.Map;
import java.util.function.IntFunction;

/**
 * worker_coll.so in the test kit: a domain of instances in this process, whose host (for every
 * command) is this process, and helpers that send one command per rank and await every answer.
 * Host buffers are JNA Memory, addressed by their native addresses.
 */
final class CollFixture implements AutoCloseable {
    static final Path SO = Path.of(System.getProperty("urom.coll.so", "target/worker_coll.so"));
    private static final int RTLD_NOW = 0x2;
    private static final int RTLD_GLOBAL = 0x100;
    private static final NativeLibrary HOST_SHIM = loadHostShim();
    private static long nextCookie = 1000;

    final TestDomain domain;

    private CollFixture(int workers, Duration wait) {
        assertThat(Files.isRegularFile(SO)).as("%s is built", SO).isTrue();
        domain = PluginTestKit.plugin(SO).timeout(wait).openDomain(workers);
    }

    static CollFixture open(int workers) {
        return new CollFixture(workers, Duration.ofSeconds(30));
    }

    /**
     * Until the worker provides urom_worker_host_process (the host-process change), the test
     * stand-in, loaded RTLD_GLOBAL before any plugin; null when the process has the real one.
     */
    private static NativeLibrary loadHostShim() {
        try {
            NativeLibrary.getProcess().getFunction("urom_worker_host_process");
            return null;
        } catch (UnsatisfiedLinkError absent) {
            Path shim = SO.resolveSibling("c-tests/libcoll_test_host.so");
            return NativeLibrary.getInstance(shim.toAbsolutePath().toString(), Map.of(Library.OPTION_OPEN_FLAGS, RTLD_NOW | RTLD_GLOBAL));
        }
    }

    /** How the stand-in names the host: 0 this process, 1 NOT_SUPPORTED, 2 an exited process, 3 NOT_FOUND. */
    static void hostMode(int mode) {
        assertThat(HOST_SHIM).as("the test stand-in for urom_worker_host_process is loaded").isNotNull();
        HOST_SHIM.getFunction("coll_test_host_mode").invokeVoid(new Object[] {mode});
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
