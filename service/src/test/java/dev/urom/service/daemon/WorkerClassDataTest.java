// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.testkit.TestWorkers;
import dev.urom.wire.ServiceAddress;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerClassDataTest {
    private static final List<String> OPTIONS = DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS;

    @TempDir
    Path dir;

    /** A worker's own directory, where a dump is written. */
    private Path workerDir() throws IOException {
        return Files.createDirectories(dir.resolve("worker-0"));
    }

    @Test
    void aPresentArchiveIsChosen() throws IOException {
        WorkerClassData data =
                WorkerClassData.of(dir.resolve("cds"), "jvm", jar("a.jar").toString(), OPTIONS, false);
        Files.write(data.archive(), new byte[] {1});

        WorkerClassData.Launch launch = data.nextLaunch(workerDir());

        assertThat(launch.jvmOptions()).containsExactly("-XX:SharedArchiveFile=" + data.archive());
        assertThat(data.archive().getParent()).isEqualTo(dir.resolve("cds"));
        assertThat(data.archive().getFileName().toString()).matches("worker-[0-9a-f]{16}\\.jsa");
    }

    @Test
    void aMissingArchiveIsDumpedByOneWorkerAndInstalledWhenItExitsNormally() throws IOException {
        WorkerClassData data = WorkerClassData.of(
                dir.resolve("cds"), "jvm", jar("a.jar") + File.pathSeparator + jar("b.jar"), OPTIONS, false);

        WorkerClassData.Launch dump = data.nextLaunch(workerDir());
        Path temporary = dumpTarget(dump);
        assertThat(temporary.getParent())
                .as("the worker writes the dump into its own directory")
                .isEqualTo(workerDir());
        assertThat(data.nextLaunch(workerDir()).jvmOptions())
                .as("while one worker dumps, others get no option")
                .isEmpty();

        Files.write(temporary, new byte[] {42});
        dump.exited(0);

        assertThat(temporary).doesNotExist();
        assertThat(data.archive()).hasBinaryContent(new byte[] {42});
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(data.archive())))
                .isEqualTo("rw-r--r--");
        try (var left = Files.list(data.archive().getParent())) {
            assertThat(left).as("no temporary file is left in the cache").containsExactly(data.archive());
        }
        assertThat(data.nextLaunch(workerDir()).jvmOptions())
                .containsExactly("-XX:SharedArchiveFile=" + data.archive());
    }

    @Test
    void aDumpOfAWorkerThatFailedIsThrownAwayAndAfterTwoFailuresNoMoreAreTried() throws IOException {
        WorkerClassData data =
                WorkerClassData.of(dir.resolve("cds"), "jvm", jar("a.jar").toString(), OPTIONS, false);

        WorkerClassData.Launch first = data.nextLaunch(workerDir());
        Path half = dumpTarget(first);
        Files.write(half, new byte[] {1, 2});
        first.exited(137);
        assertThat(half).doesNotExist();
        assertThat(data.archive()).doesNotExist();

        WorkerClassData.Launch second = data.nextLaunch(workerDir());
        dumpTarget(second);
        second.exited(0); // exited normally but wrote nothing
        assertThat(data.archive()).doesNotExist();

        assertThat(data.nextLaunch(workerDir()).jvmOptions()).isEmpty();
    }

    @Test
    void aClassPathWithADirectoryIsNotArchived() throws IOException {
        Path classes = Files.createDirectories(dir.resolve("classes"));
        WorkerClassData data = WorkerClassData.of(
                dir.resolve("cds"), "jvm", jar("a.jar") + File.pathSeparator + classes, OPTIONS, false);

        assertThat(data.archive()).isNull();
        assertThat(data.offReason()).isEqualTo("class path entry " + classes + " is not a jar file");
        assertThat(data.nextLaunch(workerDir()).jvmOptions()).isEmpty();
        assertThat(dir.resolve("cds")).doesNotExist();
    }

    @Test
    void workerOptionsThatChooseClassSharingThemselvesTurnItOff() throws IOException {
        WorkerClassData data =
                WorkerClassData.of(dir.resolve("cds"), "jvm", jar("a.jar").toString(), List.of("-Xshare:off"), false);

        assertThat(data.archive()).isNull();
        assertThat(data.nextLaunch(workerDir()).jvmOptions()).isEmpty();
    }

    @Test
    void aCacheDirectoryOthersCanWriteIsNotUsed() throws IOException {
        Path cache = Files.createDirectory(
                dir.resolve("cds"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
        Files.setPosixFilePermissions(cache, PosixFilePermissions.fromString("rwxrwxrwx"));

        WorkerClassData data = WorkerClassData.of(cache, "jvm", jar("a.jar").toString(), OPTIONS, false);

        assertThat(data.archive()).isNull();
        assertThat(data.offReason()).isEqualTo("cache directory " + cache + " can be written by others (rwxrwxrwx)");
    }

    @Test
    void theCacheDirectoryIsCreatedForTheOwnerOnly() throws IOException {
        Path cache = dir.resolve("a").resolve("cds");
        WorkerClassData.of(cache, "jvm", jar("a.jar").toString(), OPTIONS, false);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)))
                .isEqualTo("rwx------");
    }

    @Test
    void workersOfAnotherUserCanReadTheCacheButNotWriteIt() throws IOException {
        Path cache = dir.resolve("a").resolve("cds");
        WorkerClassData.of(cache, "jvm", jar("a.jar").toString(), OPTIONS, false);
        WorkerClassData.of(cache, "jvm", jar("a.jar").toString(), OPTIONS, true);

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache)))
                .isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(cache.getParent())))
                .isEqualTo("rwxr-xr-x");
    }

    @Test
    void archivesNoDaemonStartedWithForAWeekArePrunedAndTheOwnArchiveIsMarkedUsed() throws IOException {
        Path cache = Files.createDirectories(dir.resolve("cds"));
        Instant now = Instant.parse("2026-12-01T00:00:00Z");
        Path own = Files.write(cache.resolve("worker-0000000000000001.jsa"), new byte[] {1});
        Path oldOther = Files.write(cache.resolve("worker-0000000000000002.jsa"), new byte[] {2});
        Path recentOther = Files.write(cache.resolve("worker-0000000000000003.jsa"), new byte[] {3});
        Path oldUnfinished = Files.write(cache.resolve("worker-0000000000000004.jsa.77-1.tmp"), new byte[] {4});
        Path notAnArchive = Files.write(cache.resolve("notes.txt"), new byte[] {5});
        for (Path old : List.of(own, oldOther, oldUnfinished, notAnArchive)) {
            Files.setLastModifiedTime(old, FileTime.from(now.minus(Duration.ofDays(8))));
        }
        Files.setLastModifiedTime(recentOther, FileTime.from(now.minus(Duration.ofDays(6))));

        WorkerClassData.markUsedAndPrune(own, now);

        assertThat(own).exists();
        assertThat(Files.getLastModifiedTime(own).toInstant()).isEqualTo(now);
        assertThat(oldOther).doesNotExist();
        assertThat(oldUnfinished).doesNotExist();
        assertThat(recentOther).exists();
        assertThat(notAnArchive).exists();
    }

    @Test
    void aRebuiltJarAnotherJvmOrOtherOptionsGetAnotherArchive() throws IOException {
        Path jar = jar("a.jar");
        Path first = WorkerClassData.of(dir.resolve("cds"), "jvm", jar.toString(), OPTIONS, false)
                .archive();

        assertThat(WorkerClassData.of(dir.resolve("cds"), "jvm", jar.toString(), OPTIONS, false)
                        .archive())
                .isEqualTo(first);
        assertThat(WorkerClassData.of(dir.resolve("cds"), "other jvm", jar.toString(), OPTIONS, false)
                        .archive())
                .isNotEqualTo(first);
        assertThat(WorkerClassData.of(dir.resolve("cds"), "jvm", jar.toString(), List.of("-Xmx64m"), false)
                        .archive())
                .isNotEqualTo(first);
        Files.setLastModifiedTime(
                jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() - 60_000));
        assertThat(WorkerClassData.of(dir.resolve("cds"), "jvm", jar.toString(), OPTIONS, false)
                        .archive())
                .isNotEqualTo(first);
    }

    @Test
    void concurrentStartsDumpOnce() throws Exception {
        WorkerClassData data =
                WorkerClassData.of(dir.resolve("cds"), "jvm", jar("a.jar").toString(), OPTIONS, false);
        int starts = 8;
        CyclicBarrier together = new CyclicBarrier(starts);
        ExecutorService threads = Executors.newFixedThreadPool(starts);
        try {
            List<Future<WorkerClassData.Launch>> launches = new ArrayList<>();
            for (int i = 0; i < starts; i++) {
                Callable<WorkerClassData.Launch> start = () -> {
                    together.await(30, TimeUnit.SECONDS);
                    return data.nextLaunch(workerDir());
                };
                launches.add(threads.submit(start));
            }
            int dumps = 0;
            for (Future<WorkerClassData.Launch> launch : launches) {
                List<String> options = launch.get(30, TimeUnit.SECONDS).jvmOptions();
                if (options.stream().anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="))) {
                    dumps++;
                } else {
                    assertThat(options).isEmpty();
                }
            }
            assertThat(dumps).isEqualTo(1);
        } finally {
            threads.shutdownNow();
        }
    }

    /** A real JVM writes the archive at its exit, and the next one maps its main class from it. */
    @Test
    void aRealWorkerJvmDumpsAnArchiveTheNextOneUses() throws Exception {
        Path jar = jarWith("probe.jar", ClassDataProbe.class);
        WorkerClassData data = WorkerClassData.of(dir.resolve("cds"), "this jvm", jar.toString(), OPTIONS, false);

        WorkerClassData.Launch dump = data.nextLaunch(workerDir());
        Run dumping = runProbe(jar, dump.jvmOptions(), List.of());
        dump.exited(dumping.exitStatus);
        assertThat(dumping.stdout).isEqualTo("READY probe\n");
        assertThat(data.archive()).isRegularFile();

        WorkerClassData.Launch shared = data.nextLaunch(workerDir());
        assertThat(shared.jvmOptions()).containsExactly("-XX:SharedArchiveFile=" + data.archive());
        Run using =
                runProbe(jar, shared.jvmOptions(), List.of("-Xlog:class+load=info:file=" + dir.resolve("classes.log")));
        assertThat(using.stdout).isEqualTo("READY probe\n");
        assertThat(Files.readAllLines(dir.resolve("classes.log")))
                .anyMatch(line -> line.contains(ClassDataProbe.class.getName() + " source: shared objects file (top)"));
    }

    /**
     * The JVM refuses an archive made for another class path with a warning that it would print on
     * stdout by default: the worker's command line sends it to stderr, stdout keeps only the line.
     */
    @Test
    void aStaleArchiveLeavesTheWorkersStdoutAlone() throws Exception {
        WorkerClassData data =
                WorkerClassData.of(dir.resolve("cds"), "jvm", jar("a.jar").toString(), OPTIONS, false);
        Run other = runProbe(
                jarWith("other.jar", ClassDataProbe.class),
                List.of("-XX:ArchiveClassesAtExit=" + data.archive()),
                List.of());
        assertThat(other.exitStatus).isZero();
        assertThat(data.archive()).isRegularFile();
        DaemonConfig config = DaemonConfig.builder()
                .listen(ServiceAddress.parse("unix:" + dir.resolve("d.sock")))
                .logDir(dir.resolve("log"))
                .workerMainClass(ClassDataProbe.class.getName())
                .security(TestWorkers.security())
                .build();
        String stdout;
        Process process;
        try (WorkerRuntime runtime = WorkerRuntime.start(config.security())) {
            WorkerCommandLine.Launch launch = new WorkerCommandLine(config, runtime, data)
                    .build(
                            0,
                            0,
                            OsTestbed.self(),
                            List.of("--listen-unix", dir.resolve("w.sock").toString()),
                            workerDir(),
                            List.of(),
                            List.of());
            assertThat(launch.command()).contains("-XX:SharedArchiveFile=" + data.archive());

            process = new ProcessBuilder(launch.command())
                    .redirectError(dir.resolve("stderr.txt").toFile())
                    .start();
            process.getOutputStream().close();
            try (InputStream in = process.getInputStream()) {
                stdout = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        }

        assertThat(stdout).isEqualTo("READY probe\n");
        assertThat(process.exitValue()).isZero();
        assertThat(Files.readString(dir.resolve("stderr.txt")))
                .contains(data.archive().getFileName().toString());
    }

    private record Run(int exitStatus, String stdout) {}

    private Run runProbe(Path jar, List<String> classDataOptions, List<String> more) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xlog:disable");
        command.add("-Xlog:all=warning:stderr");
        command.addAll(OPTIONS);
        command.addAll(classDataOptions);
        command.addAll(more);
        command.add("-cp");
        command.add(jar.toString());
        command.add(ClassDataProbe.class.getName());
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        process.getOutputStream().close();
        String stdout;
        try (InputStream in = process.getInputStream()) {
            stdout = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("probe JVM %s ended", command)
                .isTrue();
        return new Run(process.exitValue(), stdout);
    }

    private static Path dumpTarget(WorkerClassData.Launch launch) {
        List<String> options = launch.jvmOptions();
        assertThat(options).anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit="));
        String option = options.stream()
                .filter(o -> o.startsWith("-XX:ArchiveClassesAtExit="))
                .findFirst()
                .orElseThrow();
        return Path.of(option.substring("-XX:ArchiveClassesAtExit=".length()));
    }

    private Path jar(String name) throws IOException {
        Path jar = dir.resolve(name);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("empty.txt"));
            out.closeEntry();
        }
        return jar;
    }

    private Path jarWith(String name, Class<?> type) throws IOException {
        Path jar = dir.resolve(name);
        String entry = type.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                InputStream in = type.getClassLoader().getResourceAsStream(entry)) {
            assertThat(in).as("class file %s", entry).isNotNull();
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }
}
