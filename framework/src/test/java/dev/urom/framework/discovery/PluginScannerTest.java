package dev.urom.framework.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The scanner with a prober stand-in: ordering, caching and probe failures. */
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

        assertThat(first.rejected()).containsExactly(
                new Rejection(file, file + ": cannot be probed (cannot start urom-probe)"));
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

        assertThat(outcome.warnings()).containsExactly("UROM_PLUGIN_PATH entry " + file + " is not a directory; skipped");
    }

    @Test
    void aDanglingLinkIsRejectedWithItsPath() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("dangling.so"), dir.resolve("nowhere.so"));
        touch("ok.so");

        ScanOutcome outcome = new PluginScanner((f, kind) -> ProbeVerdict.accepted(1)).scan(dir.toString());

        assertThat(outcome.plugins()).extracting(ScannedPlugin::name).containsExactly("ok");
        assertThat(outcome.rejected()).extracting(Rejection::path).containsExactly(link);
    }

    private Path touch(String name) throws IOException {
        return Files.writeString(dir.resolve(name), name);
    }
}
