// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static dev.urom.framework.security.TestAccounts.ME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.urom.framework.security.TestAccounts;
import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scanner with a prober stand-in: ordering, caching, probe failures, the trust of directories
 * and files, and the per-directory limit.
 */
class PluginScannerTest {
    @TempDir
    Path dir;

    @Test
    void probesCandidatesInNameOrderWithTheirKind() throws IOException {
        touch("b.so");
        touch("a.zip");
        touch("c.jar");
        List<String> probed = new ArrayList<>();
        PluginScanner scanner = new PluginScanner((file, kind) -> {
            probed.add(file.getFileName() + ":" + kind);
            return ProbeVerdict.accepted(7);
        });

        ScanOutcome outcome = scanner.scan(dir.toString());

        assertThat(probed).containsExactly("a.zip:JAVA", "b.so:NATIVE", "c.jar:JAVA");
        assertThat(outcome.plugins()).extracting(ScannedPlugin::name).containsExactly("a", "b", "c");
        assertThat(outcome.plugins()).extracting(ScannedPlugin::version).containsOnly(7L);
    }

    @Test
    void aProbeThatCannotRunRejectsTheFileAndIsRetriedNextScan() throws IOException {
        Path file = touch("x.so");
        AtomicInteger calls = new AtomicInteger();
        PluginScanner scanner = new PluginScanner((f, kind) -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("cannot start urom-probe");
            }
            return ProbeVerdict.accepted(1);
        });

        ScanOutcome first = scanner.scan(dir.toString());
        ScanOutcome second = scanner.scan(dir.toString());

        assertThat(first.rejected())
                .containsExactly(new Rejection(file, file + ": cannot be probed (cannot start urom-probe)"));
        assertThat(second.plugins()).extracting(ScannedPlugin::path).containsExactly(file);
        assertThat(calls).hasValue(2);
    }

    @Test
    void concurrentScansProbeEachFileOnce() throws Exception {
        for (int i = 0; i < 8; i++) {
            touch("p" + i + ".so");
        }
        ConcurrentHashMap<Path, AtomicInteger> probes = new ConcurrentHashMap<>();
        PluginScanner scanner = new PluginScanner((file, kind) -> {
            probes.computeIfAbsent(file, f -> new AtomicInteger()).incrementAndGet();
            return ProbeVerdict.accepted(1);
        });
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Callable<ScanOutcome>> scans = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                scans.add(() -> scanner.scan(dir.toString()));
            }
            for (Future<ScanOutcome> scan : pool.invokeAll(scans)) {
                assertThat(scan.get().plugins()).hasSize(8);
            }
        } finally {
            pool.shutdown();
            assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).isTrue();
        }

        assertThat(probes).hasSize(8);
        assertThat(probes.values()).allSatisfy(count -> assertThat(count).hasValue(1));
        assertThat(scanner.probeCount()).isEqualTo(8);
    }

    @Test
    void aFileThatIsNotReadableAsADirectoryEntryIsAWarning() throws IOException {
        Path file = touch("not-a-dir");

        ScanOutcome outcome = new PluginScanner((f, kind) -> ProbeVerdict.accepted(1)).scan(file + ";" + dir);

        assertThat(outcome.warnings())
                .containsExactly("UROM_PLUGIN_PATH entry " + file + " is not a directory; skipped");
    }

    @Test
    void aDanglingLinkIsRejectedWithItsPath() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("dangling.so"), dir.resolve("nowhere.so"));
        touch("ok.so");

        ScanOutcome outcome = new PluginScanner((f, kind) -> ProbeVerdict.accepted(1)).scan(dir.toString());

        assertThat(outcome.plugins()).extracting(ScannedPlugin::name).containsExactly("ok");
        assertThat(outcome.rejected()).extracting(Rejection::path).containsExactly(link);
    }

    @Test
    void aCandidateWritableByOthersIsRejectedUnprobedAndAcceptedWithAWarningWhenAllowed() throws IOException {
        Path open = mode(touch("open.so"), 0646);
        Path good = touch("good.so");
        List<Path> probed = new ArrayList<>();
        CandidateProber prober = (file, kind) -> {
            probed.add(file);
            return ProbeVerdict.accepted(1);
        };

        ScanOutcome secure = new PluginScanner(prober).scan(dir.toString());
        List<Path> probedSecurely = List.copyOf(probed);
        ScanOutcome allowed =
                new PluginScanner(prober, ScanPolicy.secure().withAllowInsecure(true)).scan(dir.toString());

        String problem = open + " is mode 0646, owner " + UnixAccounts.describeUser(ME) + ", group "
                + UnixAccounts.describeGroup(gid(open)) + ": writable by others";
        assertThat(probedSecurely).containsExactly(good);
        assertThat(secure.plugins()).extracting(ScannedPlugin::path).containsExactly(good);
        assertThat(secure.rejected()).containsExactly(new Rejection(open, problem + "; not probed"));
        assertThat(secure.warnings()).isEmpty();
        assertThat(allowed.plugins()).extracting(ScannedPlugin::path).containsExactly(good, open);
        assertThat(allowed.rejected()).isEmpty();
        assertThat(allowed.warnings())
                .containsExactly(problem + "; probed all the same (insecure plugin directories are allowed)");
    }

    @Test
    void aGroupWritableCandidateIsRejectedUnlessItsGroupIsTheOwnersPrivateGroup() throws IOException {
        Path shared = mode(touch("shared.so"), 0664);
        if (TestAccounts.runsAsRoot()) {
            Files.setAttribute(shared, "unix:gid", TestAccounts.gidWithoutGroup());
        }
        boolean privateGroup = UnixAccounts.isPrivateGroup(ME, gid(shared));

        ScanOutcome outcome = new PluginScanner((file, kind) -> ProbeVerdict.accepted(1)).scan(dir.toString());

        if (privateGroup) {
            assertThat(outcome.plugins()).extracting(ScannedPlugin::path).containsExactly(shared);
        } else {
            assertThat(outcome.plugins()).isEmpty();
            assertThat(outcome.rejected())
                    .singleElement()
                    .extracting(Rejection::reason, STRING)
                    .startsWith(shared + " is mode 0664")
                    .endsWith(": writable by its group, which is not the owner's private group; not probed");
        }
        if (TestAccounts.runsAsRoot()) {
            assertThat(privateGroup)
                    .as("as root the group is one without an entry")
                    .isFalse();
        }
    }

    @Test
    void everyCandidateOfADirectoryWritableByOthersIsRejectedUnprobed() throws IOException {
        Path a = touch("a.so");
        Path b = touch("b.jar");
        mode(dir, 0777);
        AtomicInteger probes = new AtomicInteger();

        ScanOutcome outcome = new PluginScanner((file, kind) -> {
                    probes.incrementAndGet();
                    return ProbeVerdict.accepted(1);
                })
                .scan(dir.toString());

        String problem = dir + " is mode 0777, owner " + UnixAccounts.describeUser(ME) + ", group "
                + UnixAccounts.describeGroup(gid(dir)) + ": writable by others";
        assertThat(outcome.rejected())
                .containsExactly(
                        new Rejection(a, a + ": not probed: " + problem),
                        new Rejection(b, b + ": not probed: " + problem));
        assertThat(outcome.plugins()).isEmpty();
        assertThat(probes).hasValue(0);
    }

    @Test
    void aCandidateOfAnUntrustedOwnerIsRejectedUnprobed() throws IOException {
        Path file = mode(touch("theirs.so"), 0644);
        ScanPolicy policy;
        String reason;
        if (TestAccounts.runsAsRoot()) {
            int nobody = UnixAccounts.user("nobody").orElseThrow().uid();
            Files.setAttribute(file, "unix:uid", nobody);
            policy = ScanPolicy.secure();
            reason = file + " is mode 0644, owner " + UnixAccounts.describeUser(nobody);
        } else {
            // Not root: nothing here can belong to anyone else, so this user is left out of the trusted owners.
            policy = ScanPolicy.secure().withTrustedOwners(Set.of());
            reason = file + ": not probed: " + dir + " is mode 0700, owner " + UnixAccounts.describeUser(ME);
        }
        AtomicInteger probes = new AtomicInteger();

        ScanOutcome outcome = new PluginScanner(
                        (f, kind) -> {
                            probes.incrementAndGet();
                            return ProbeVerdict.accepted(1);
                        },
                        policy)
                .scan(dir.toString());

        assertThat(outcome.rejected())
                .singleElement()
                .extracting(Rejection::reason, STRING)
                .startsWith(reason)
                .contains("its owner is not trusted (trusted: root (uid 0))");
        assertThat(probes).hasValue(0);
    }

    @Test
    void aCandidateTheReaderCannotReadIsRejected() throws IOException {
        Path file = touch("a.so");
        UnixAccount worker =
                new UnixAccount("worker", TestAccounts.uidWithoutAccount(), TestAccounts.gidWithoutGroup(), List.of());
        PluginScanner scanner = new PluginScanner(
                (f, kind) -> ProbeVerdict.accepted(1), ScanPolicy.secure().withReader(worker));

        ScanOutcome closed = scanner.scan(dir.toString());
        mode(dir, 0755);
        ScanOutcome opened = scanner.scan(dir.toString());

        assertThat(closed.rejected())
                .containsExactly(new Rejection(
                        file,
                        "worker (uid " + worker.uid() + ") cannot read " + file + ": " + dir + " is mode 0700, owner "
                                + UnixAccounts.describeUser(ME) + ", group " + UnixAccounts.describeGroup(gid(dir))));
        assertThat(opened.plugins()).extracting(ScannedPlugin::path).containsExactly(file);
    }

    @Test
    void onlyTheFirst1024CandidatesOfADirectoryAreExaminedAndTheRestAreOneEntry() throws IOException {
        for (int i = 0; i < 1500; i++) {
            touch(String.format("p%04d.so", i));
        }
        List<String> probed = new ArrayList<>();
        PluginScanner scanner = new PluginScanner((file, kind) -> {
            probed.add(file.getFileName().toString());
            return ProbeVerdict.accepted(1);
        });

        ScanOutcome outcome = scanner.scan(dir.toString());

        String tooMany = dir
                + ": 476 more entries with a plugin file name were not examined (at most 1024 per directory, the first by name)";
        assertThat(probed).hasSize(1024).startsWith("p0000.so").endsWith("p1023.so");
        assertThat(outcome.plugins()).hasSize(1024);
        assertThat(outcome.rejected()).containsExactly(new Rejection(dir, tooMany));
        assertThat(outcome.warnings()).containsExactly("UROM_PLUGIN_PATH directory " + tooMany);
    }

    @Test
    void moreThan4096CandidatesOverSeveralDirectoriesAreNotProbedAgain() throws IOException {
        List<Path> directories = new ArrayList<>();
        for (int d = 0; d < 5; d++) {
            Path directory = Files.createDirectory(dir.resolve("d" + d));
            directories.add(directory);
            for (int i = 0; i < 1000; i++) {
                Files.writeString(directory.resolve(String.format("d%d_p%04d.so", d, i)), "x");
            }
        }
        PluginScanner scanner = new PluginScanner((file, kind) -> ProbeVerdict.rejected(file + ": stand-in"));

        ScanOutcome first = scanner.scan(directories);
        long afterFirst = scanner.probeCount();
        ScanOutcome second = scanner.scan(directories);

        assertThat(first.rejected()).hasSize(5000);
        assertThat(afterFirst).isEqualTo(5000);
        assertThat(second.rejected()).isEqualTo(first.rejected());
        assertThat(scanner.probeCount())
                .as("the second scan takes every verdict from the cache")
                .isEqualTo(5000);
    }

    private Path touch(String name) throws IOException {
        return Files.writeString(dir.resolve(name), name);
    }

    private static Path mode(Path path, int mode) throws IOException {
        Files.setAttribute(path, "unix:mode", mode);
        return path;
    }

    private static int gid(Path path) throws IOException {
        return (Integer) Files.getAttribute(path, "unix:gid");
    }
}
