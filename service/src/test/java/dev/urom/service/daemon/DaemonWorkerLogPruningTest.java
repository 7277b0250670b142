// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.daemon.testing.FakeWorkerMain;
import dev.urom.service.logging.ServiceLogging;
import dev.urom.service.logging.WorkerLogRetention;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real daemon whose real worker processes (the {@link FakeWorkerMain} stand-in) start and end,
 * more of them than {@code --worker-log-count} keeps: the log directory ends up with the newest
 * ended workers' logs and the running worker's, the leftovers of an earlier daemon that are too old
 * are gone, and a symbolic link or directory with a worker log's name stays.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DaemonWorkerLogPruningTest {
    private static final int KEPT = 2;
    private static final int ENDED = 5;
    /** Above any Linux pid_max (at most 2^22), so no worker of this test has these pids. */
    private static final long OLD_LEFTOVER = 9_000_000_001L;

    private static final long RECENT_LEFTOVER = 9_000_000_002L;
    private static final long LINKED = 9_000_000_003L;
    private static final long DIRECTORY = 9_000_000_004L;

    @TempDir
    static Path pluginDir;

    @TempDir
    Path dir;

    private Daemon daemon;
    private ControlClient client;

    @BeforeAll
    static void compilePlugin() {
        NativeFixtures.compileMinimalPlugin(pluginDir, "alpha.so", 1);
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    private Path logDir() {
        return dir.resolve("log");
    }

    private Set<String> workerLogNames() {
        try (Stream<Path> files = Files.list(logDir())) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> n.startsWith("urom_worker_"))
                    .collect(Collectors.toCollection(TreeSet::new));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String workerLog(long pid) {
        try {
            Path file = logDir().resolve(ServiceLogging.workerLogFile(pid));
            return Files.isRegularFile(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** The pid of the one worker log, not among {@code known}, that says its worker exited. */
    private long newlyEnded(Set<Long> known) throws InterruptedException {
        long[] found = {-1};
        Await.until("a new worker log ends with its worker's exit", () -> {
            for (String name : workerLogNames()) {
                String[] parts = name.split("_");
                if (name.endsWith("_dev.log") && parts[2].chars().allMatch(Character::isDigit)) {
                    long pid = Long.parseLong(parts[2]);
                    if (!known.contains(pid)
                            && workerLog(pid).contains("worker process " + pid + " exited with status 0")) {
                        found[0] = pid;
                        return true;
                    }
                }
            }
            return false;
        });
        return found[0];
    }

    @Test
    void theNewestEndedWorkersLogsAndTheRunningOnesStayAndTheRestGo(@TempDir Path elsewhere) throws Exception {
        Files.createDirectories(logDir());
        Path old = Files.writeString(
                logDir().resolve(ServiceLogging.workerLogFile(OLD_LEFTOVER)), "an earlier daemon's worker\n");
        Files.setLastModifiedTime(old, FileTime.from(Instant.now().minus(Duration.ofDays(8))));
        Files.writeString(
                logDir().resolve(ServiceLogging.workerLogFile(RECENT_LEFTOVER)), "an earlier daemon's worker\n");
        Path victim = Files.writeString(elsewhere.resolve("victim"), "not a log\n");
        Files.setLastModifiedTime(victim, FileTime.from(Instant.now().minus(Duration.ofDays(30))));
        Files.createSymbolicLink(logDir().resolve(ServiceLogging.workerLogFile(LINKED)), victim);
        Files.createDirectory(logDir().resolve("urom_worker_" + DIRECTORY + "_crash.log"));

        DaemonConfig config = DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .logDir(logDir())
                .pluginPath(pluginDir.toString())
                .workerMainClass(FakeWorkerMain.class.getName())
                .workerLogRetention(new WorkerLogRetention(KEPT, Duration.ofDays(7)))
                .security(TestWorkers.security().toBuilder()
                        .workerEnvAllow(List.of("FAKE_*"))
                        .build())
                .build();
        daemon = Daemon.start(Daemon.configureLogging(config));
        Await.until("the too old leftover is pruned at start", () -> !Files.exists(old));
        client = ControlClient.connect(daemon.address(), java.util.Optional.empty());
        long alpha = ((PluginsReply) client.call(new PluginsRequest()))
                .plugins()
                .get(0)
                .id();

        List<Long> ended = new ArrayList<>();
        for (int i = 0; i < ENDED; i++) {
            WorkerStartReply reply = client.start(Protocol.ANY_WORKER, alpha, List.of("FAKE_MODE=ready_exit_0"));
            assertThat(reply.status()).as(reply.message()).isEqualTo(UromStatus.SUCCESS);
            ended.add(newlyEnded(Set.copyOf(ended)));
        }
        WorkerStartReply running = client.start(Protocol.ANY_WORKER, alpha, List.of());
        assertThat(running.status()).as(running.message()).isEqualTo(UromStatus.SUCCESS);
        long runningPid = daemon.workers().stream()
                .filter(w -> w.id() == running.workerId())
                .findFirst()
                .orElseThrow()
                .pid();

        Set<String> expected = new TreeSet<>(Set.of(
                ServiceLogging.workerLogFile(ended.get(ENDED - 2)),
                ServiceLogging.workerLogFile(ended.get(ENDED - 1)),
                ServiceLogging.workerLogFile(runningPid),
                ServiceLogging.workerLogFile(LINKED),
                "urom_worker_" + DIRECTORY + "_crash.log"));
        Await.until(
                "the log directory holds " + expected, () -> workerLogNames().equals(expected));
        assertThat(victim).exists();
        assertThat(daemon.workers()).extracting(WorkerInfo::pid).containsExactly(runningPid);
    }
}
