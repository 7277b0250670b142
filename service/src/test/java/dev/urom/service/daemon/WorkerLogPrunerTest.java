// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.logging.WorkerLogRetention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pruner on real files in a real directory, with a fixed clock. */
class WorkerLogPrunerTest {
    private static final Instant NOW = Instant.parse("2030-01-10T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path logs;

    private WorkerLogPruner pruner(int count, Duration maxAge) {
        return new WorkerLogPruner(logs, new WorkerLogRetention(count, maxAge), UnixAccounts.effectiveUid(), CLOCK);
    }

    /** Writes {@code name} last modified {@code minutesAgo} minutes before {@link #NOW}. */
    private Path file(String name, long minutesAgo) throws IOException {
        Path file = Files.writeString(logs.resolve(name), name + "\n");
        Files.setLastModifiedTime(file, FileTime.from(NOW.minus(Duration.ofMinutes(minutesAgo))));
        return file;
    }

    private List<String> names() throws IOException {
        try (Stream<Path> files = Files.list(logs)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theNewestEndedWorkersLogsStayWithAllTheirFilesAndTheRestGo() throws Exception {
        file("urom_worker_10_dev.log", 50);
        file("urom_worker_10_dev.log.1", 55);
        file("urom_worker_10_crash.log", 50);
        file("urom_worker_20_dev.log", 40);
        file("urom_worker_30_dev.log", 30);
        file("urom_worker_30_dev.log.1", 90);
        file("urom_worker_40_dev.log", 20);
        file("urom_daemon_dev.log", 100);

        WorkerLogPruner.Pass pass = pruner(2, Duration.ofDays(7)).prune(Set.of());

        assertThat(pass).isEqualTo(new WorkerLogPruner.Pass(4, false));
        assertThat(names())
                .containsExactly(
                        "urom_daemon_dev.log",
                        "urom_worker_30_dev.log",
                        "urom_worker_30_dev.log.1",
                        "urom_worker_40_dev.log");
    }

    @Test
    void aRunningWorkersLogStaysHoweverOldAndDoesNotCountAgainstTheEndedOnes() throws Exception {
        file("urom_worker_7_dev.log", 60 * 24 * 30);
        file("urom_worker_8_dev.log", 10);
        file("urom_worker_9_dev.log", 5);

        pruner(1, Duration.ofDays(7)).prune(Set.of(7L));

        assertThat(names()).containsExactly("urom_worker_7_dev.log", "urom_worker_9_dev.log");
    }

    @Test
    void anEndedWorkersLogOlderThanTheMaximumAgeGoesEvenWithinTheCount() throws Exception {
        file("urom_worker_1_dev.log", 61);
        file("urom_worker_2_dev.log", 59);
        file("urom_worker_3_dev.log", 60 * 24 * 8);

        pruner(64, Duration.ofHours(1)).prune(Set.of());

        assertThat(names()).containsExactly("urom_worker_2_dev.log");
    }

    @Test
    void aWorkersLogIsAsOldAsItsNewestFile() throws Exception {
        file("urom_worker_5_dev.log.2", 60 * 24 * 9);
        file("urom_worker_5_dev.log", 1);

        pruner(64, Duration.ofDays(7)).prune(Set.of());

        assertThat(names()).containsExactly("urom_worker_5_dev.log", "urom_worker_5_dev.log.2");
    }

    @Test
    void aSymlinkADirectoryAndOtherNamesAreNeverTouchedNorFollowed(@TempDir Path elsewhere) throws Exception {
        Path victim = Files.writeString(elsewhere.resolve("victim"), "not a log\n");
        Files.setLastModifiedTime(victim, FileTime.from(NOW.minus(Duration.ofDays(30))));
        Files.createSymbolicLink(logs.resolve("urom_worker_11_dev.log"), victim);
        Files.createDirectory(logs.resolve("urom_worker_12_crash.log"));
        file("urom_worker_13_dev.log.x", 60 * 24 * 30);
        file("urom_worker_014_dev.log", 60 * 24 * 30);
        file("urom_worker_15_dev.log.bak", 60 * 24 * 30);
        file("my_urom_worker_16_dev.log", 60 * 24 * 30);

        pruner(0, Duration.ofDays(1)).prune(Set.of());

        assertThat(names())
                .containsExactly(
                        "my_urom_worker_16_dev.log",
                        "urom_worker_014_dev.log",
                        "urom_worker_11_dev.log",
                        "urom_worker_12_crash.log",
                        "urom_worker_13_dev.log.x",
                        "urom_worker_15_dev.log.bak");
        assertThat(victim).exists();
    }

    @Test
    void aFileOwnedBySomeoneElseStays() throws Exception {
        file("urom_worker_21_dev.log", 60 * 24 * 30);
        int someoneElse = UnixAccounts.effectiveUid() + 1;

        WorkerLogPruner.Pass pass = new WorkerLogPruner(
                        logs, new WorkerLogRetention(0, Duration.ofDays(1)), someoneElse, CLOCK)
                .prune(Set.of());

        assertThat(pass.deleted()).isZero();
        assertThat(names()).containsExactly("urom_worker_21_dev.log");
    }

    @Test
    void aPassDeletesAtMostItsLimitOldestFirstAndTheNextPassGoesOn() throws Exception {
        int workers = WorkerLogPruner.MAX_DELETIONS_PER_PASS + 40;
        for (int pid = 1; pid <= workers; pid++) {
            file("urom_worker_" + pid + "_dev.log", workers - pid + 1);
        }
        WorkerLogPruner pruner = pruner(10, Duration.ofDays(7));

        WorkerLogPruner.Pass first = pruner.prune(Set.of());

        assertThat(first).isEqualTo(new WorkerLogPruner.Pass(WorkerLogPruner.MAX_DELETIONS_PER_PASS, true));
        assertThat(names())
                .hasSize(40)
                .contains("urom_worker_" + workers + "_dev.log")
                .doesNotContain("urom_worker_1_dev.log");
        assertThat(pruner.prune(Set.of())).isEqualTo(new WorkerLogPruner.Pass(30, false));
        assertThat(names())
                .hasSize(10)
                .allSatisfy(
                        name -> assertThat(Integer.parseInt(name.split("_")[2])).isGreaterThan(workers - 10));
    }

    @Test
    void aMissingLogDirectoryIsNothingToPrune() {
        WorkerLogPruner pruner = new WorkerLogPruner(
                logs.resolve("absent"), WorkerLogRetention.DEFAULT, UnixAccounts.effectiveUid(), CLOCK);

        assertThat(pruner.prune(Set.of())).isEqualTo(new WorkerLogPruner.Pass(0, false));
    }
}
