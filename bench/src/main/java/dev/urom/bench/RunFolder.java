// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A benchmark run's temporary folder: made by the constructor, deleted with all it holds by {@link
 * #close}, or by a shutdown hook when the JVM ends first (Ctrl-C). What cannot be deleted is
 * reported on stderr. Not thread-safe.
 */
final class RunFolder implements AutoCloseable {
    private final Path path;
    private final Thread cleanup;

    /**
     * A new folder in the temp directory named {@code <prefix>-<this pid>-<random>}, mode 0755: the
     * workers of a root daemon run as another user and must read the plugins copied into it. The
     * pid tells apart the folders of benchmark runs going on at the same time.
     */
    RunFolder(String prefix) throws IOException {
        path = Files.createTempDirectory(
                namePrefix(prefix), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        cleanup = new Thread(() -> deleteTree(path), "urom-bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    Path path() {
        return path;
    }

    @Override
    public void close() {
        deleteTree(path);
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: it removes the folder
        }
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    System.err.println("bench: cannot remove " + path + ": " + e.getMessage());
                }
            });
        } catch (IOException e) {
            System.err.println("bench: cannot remove " + root + ": " + e.getMessage());
        }
    }

    /** The start of the names of this process's run folders made with {@code prefix}. */
    static String namePrefix(String prefix) {
        return prefix + "-" + ProcessHandle.current().pid() + "-";
    }
}
