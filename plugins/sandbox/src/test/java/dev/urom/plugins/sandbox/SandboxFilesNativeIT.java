// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code sandbox_files.c}, the C plugin's file handling, compiled with the probe {@code
 * src/test/c/sandbox_files_probe.c} into a program that runs once per case: the confined open (by
 * openat2 and by the walk the plugin falls back to), the owner rule, and copies in and out of a
 * mapped file that shrank, which must fail instead of raising SIGBUS (the probe would die of it).
 */
class SandboxFilesNativeIT {
    private static final String SOURCES_PROPERTY = "urom.sandbox.sources";

    @TempDir
    static Path build;

    private static Path probe;

    @TempDir
    Path dir;

    @BeforeAll
    static void compileProbe() throws Exception {
        String sources = System.getProperty(SOURCES_PROPERTY);
        assertThat(sources)
                .as("system property " + SOURCES_PROPERTY + " (the module's src, set by its pom)")
                .isNotBlank();
        Path mainC = Path.of(sources, "main", "c");
        probe = build.resolve("sandbox_files_probe");
        List<String> command = List.of(
                "cc",
                "-std=gnu11",
                "-O2",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-I" + mainC,
                Path.of(sources, "test", "c", "sandbox_files_probe.c").toString(),
                mainC.resolve("sandbox_files.c").toString(),
                "-o",
                probe.toString());
        Result compiled = run(command);
        assertThat(compiled.exit())
                .as("cc of the probe:\n%s", compiled.output())
                .isZero();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"walk", "auto"})
    void theConfinedOpenNeverFollowsASymbolicLinkAndAnswersLikeOpen(String how) throws Exception {
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Files.write(outside.resolve("secret"), new byte[] {1});
        Path root = Files.createDirectory(dir.resolve("root"));
        Files.createDirectory(root.resolve("sub"));
        Files.write(root.resolve("sub/file"), new byte[] {2});
        Files.createSymbolicLink(root.resolve("link"), outside.resolve("secret"));
        Files.createSymbolicLink(root.resolve("sub/link"), outside.resolve("secret"));
        Files.createSymbolicLink(root.resolve("hop"), outside);
        Files.createSymbolicLink(root.resolve("inside"), root.resolve("sub/file"));
        assertThat(run(List.of("mkfifo", root.resolve("fifo").toString())).exit())
                .as("mkfifo")
                .isZero();

        String[][] cases = {
            {"sub/file", "opened"},
            {"sub//file", "opened"},
            {"./sub/file", "opened"},
            {"link", "error ELOOP"},
            {"sub/link", "error ELOOP"},
            {"hop/secret", "error ELOOP"},
            {"inside", "error ELOOP"},
            {"sub/../sub/file", "error EXDEV"},
            {"missing", "error ENOENT"},
            {"sub/missing", "error ENOENT"},
            {"sub/file/", "error ENOTDIR"},
            {"sub/file/x", "error ENOTDIR"},
            {"fifo/x", "error ENOTDIR"},
            {"sub", "error EISDIR"},
            {"sub/", "error EISDIR"},
            {"", "error EISDIR"},
        };
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        for (String[] c : cases) {
            expected.add(c[0] + " -> " + c[1]);
            actual.add(c[0] + " -> " + probe("open", how, root.toString(), c[0]));
        }
        assertThat(actual).containsExactlyElementsOf(expected);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"walk", "auto"})
    void theConfinedOpenDoesNotCrossAMountPoint(String how) throws Exception {
        assertThat(Files.readAllLines(Path.of("/proc/mounts")))
                .as("/proc is a mount point of its own")
                .anyMatch(line -> line.split(" ")[1].equals("/proc"));
        assertThat(probe("open", how, "/", "proc/version")).isEqualTo("error EXDEV");
    }

    @ParameterizedTest(name = "''{0}'' -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "0|valid 0",
                "1000|valid 1000",
                "007|valid 7",
                "4294967294|valid 4294967294",
                "4294967295|error EINVAL",
                "99999999999999999999|error EINVAL",
                "''|error EINVAL",
                "-1|error EINVAL",
                "+5|error EINVAL",
                "' 5'|error EINVAL",
                "'5 '|error EINVAL",
                "0x10|error EINVAL",
                "abc|error EINVAL"
            })
    void uromOwnerUidIsADecimalUid(String text, String expected) throws Exception {
        assertThat(probe("parse", text)).isEqualTo(expected);
    }

    /** As any user: the file is one this test's user does not own (see {@link OwnerFixtures#notMine}). */
    @Test
    void onlyTheWorkersUserAndUromOwnerUidOwnAcceptedFiles() throws Exception {
        Path notMine = OwnerFixtures.notMine(dir);
        long owner = OwnerFixtures.uidOf(notMine);
        long other = owner == OwnerFixtures.NOBODY ? OwnerFixtures.NOBODY - 1 : owner + 1;
        Path mine = Files.write(dir.resolve("mine"), new byte[1]);

        assertThat(probe("owner", notMine.toString())).as("no UROM_OWNER_UID").isEqualTo("refused " + owner);
        assertThat(probe("owner", notMine.toString(), Long.toString(other)))
                .as("another UROM_OWNER_UID")
                .isEqualTo("refused " + owner);
        assertThat(probe("owner", notMine.toString(), Long.toString(owner)))
                .as("UROM_OWNER_UID is the owner")
                .isEqualTo("accepted");
        assertThat(probe("owner", mine.toString(), Long.toString(other)))
                .as("the worker's own file")
                .isEqualTo("accepted");
        assertThat(probe("owner", mine.toString()))
                .as("the worker's own file, no UROM_OWNER_UID")
                .isEqualTo("accepted");
    }

    @Test
    void copiesAtAMappedFileThatShrankFailInsteadOfFaulting() throws Exception {
        assertThat(probe("shrunk", ShmScratch.SHM.toString())).isEqualTo("copy EFAULT read ENODATA write ENODATA");
    }

    @Test
    void aKernelCopyIntoAWholeMappingLandsInTheFile() throws Exception {
        assertThat(probe("intact", ShmScratch.SHM.toString())).isEqualTo("copied");
    }

    private record Result(int exit, String output) {}

    /** Runs the probe; its one line of output, after checking it exited with 0 (a signal is a failure). */
    private static String probe(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(probe.toString()));
        command.addAll(List.of(args));
        Result result = run(command);
        assertThat(result.exit())
                .as("exit status of %s (128 + n: killed by signal n); output: %s", command, result.output())
                .isZero();
        return result.output().strip();
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError(command + " did not finish within 60 s");
            }
            return new Result(
                    process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            process.destroyForcibly();
        }
    }
}
