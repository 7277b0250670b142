// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.urom.spi.UromException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ConfinedFiles} on a tree of real files, links and a FIFO, with the cases of the C
 * plugin's probe ({@code SandboxFilesNativeIT}) and the statuses MEM_MAP gives them.
 */
class ConfinedFilesTest {
    @TempDir
    Path dir;

    @Test
    void opensRegularFilesOnlyAndNeverThroughASymbolicLinkOrAMountPoint() throws Exception {
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Files.write(outside.resolve("secret"), new byte[] {1});
        Path root = Files.createDirectory(dir.resolve("root"));
        Files.createDirectory(root.resolve("sub"));
        Files.write(root.resolve("sub/file"), new byte[] {2, 3});
        Files.createSymbolicLink(root.resolve("link"), outside.resolve("secret"));
        Files.createSymbolicLink(root.resolve("sub/link"), outside.resolve("secret"));
        Files.createSymbolicLink(root.resolve("hop"), outside);
        Files.createSymbolicLink(root.resolve("inside"), root.resolve("sub/file"));
        Files.createDirectory(root.resolve("mnt"));
        Files.write(root.resolve("mnt/file"), new byte[] {4});
        mkfifo(root.resolve("fifo"));
        MappableRoots roots =
                new MappableRoots(List.of(new MappableRoots.Root(root.toString(), false)), Set.of(root + "/mnt"));

        String[][] cases = {
            {"sub/file", "opened 2 bytes"},
            {"sub//file", "opened 2 bytes"},
            {"./sub/file", "opened 2 bytes"},
            {"link", "NOT_PERMITTED"},
            {"sub/link", "NOT_PERMITTED"},
            {"hop/secret", "NOT_PERMITTED"},
            {"inside", "NOT_PERMITTED"},
            {"sub/../sub/file", "NOT_PERMITTED"},
            {"mnt/file", "NOT_PERMITTED"},
            {"missing", "NOT_FOUND"},
            {"sub/missing", "NOT_FOUND"},
            {"sub/file/", "NOT_FOUND"},
            {"sub/file/x", "NOT_FOUND"},
            {"fifo/x", "NOT_FOUND"},
            {"fifo", "INVALID_VALUE"},
            {"sub", "INVALID_VALUE"},
            {"sub/", "INVALID_VALUE"},
            {"", "INVALID_VALUE"},
        };
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        assertTimeoutPreemptively(
                Duration.ofSeconds(30),
                () -> {
                    for (String[] c : cases) {
                        expected.add(c[0] + " -> " + c[1]);
                        actual.add(c[0] + " -> " + open(roots, root, c[0]));
                    }
                },
                "an open waited (on the FIFO?)");
        assertThat(actual).containsExactlyElementsOf(expected);
    }

    @Test
    void aRefusalNamesThePathAndTheReason() throws IOException {
        Path root = Files.createDirectory(dir.resolve("root"));
        Files.createSymbolicLink(root.resolve("link"), dir);
        MappableRoots roots = new MappableRoots(List.of(new MappableRoots.Root(root.toString(), false)), Set.of());
        try {
            ConfinedFiles.open(roots, new MappableRoots.Root(root.toString(), false), root + "/link/x");
            throw new AssertionError("a path through a link was opened");
        } catch (UromException e) {
            assertThat(e.getMessage())
                    .isEqualTo("MEM_MAP of '" + root + "/link/x' refused: the path goes through a symbolic link");
        }
    }

    private static String open(MappableRoots roots, Path root, String rest) throws IOException {
        try (FileChannel channel =
                ConfinedFiles.open(roots, new MappableRoots.Root(root.toString(), false), root + "/" + rest)) {
            return "opened " + channel.size() + " bytes";
        } catch (UromException e) {
            return e.status().toString();
        }
    }

    private static void mkfifo(Path at) throws IOException, InterruptedException {
        Process mkfifo = new ProcessBuilder("mkfifo", at.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS)).as("mkfifo finished").isTrue();
        assertThat(mkfifo.exitValue()).as("mkfifo's exit status").isZero();
    }
}
