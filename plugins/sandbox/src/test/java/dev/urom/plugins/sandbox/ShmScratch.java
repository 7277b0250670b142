// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Files, directories and symbolic links a test makes in {@code /dev/shm}, each with a fresh name,
 * all removed by {@link #close} (links themselves, never what they point to). Not thread-safe.
 */
final class ShmScratch implements AutoCloseable {
    static final Path SHM = Path.of("/dev/shm");

    private final Deque<Path> made = new ArrayDeque<>();

    /** A fresh name directly in {@code /dev/shm}, not yet made. */
    Path name(String what) {
        Path path = SHM.resolve("urom-sandbox-test-" + what + "-" + UUID.randomUUID());
        made.push(path);
        return path;
    }

    /** A file directly in {@code /dev/shm} holding {@code contents}. */
    Path file(byte[] contents) {
        return write(name("file"), contents);
    }

    /** A directory directly in {@code /dev/shm}. */
    Path directory() {
        try {
            return Files.createDirectory(name("dir"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A symbolic link to {@code target} directly in {@code /dev/shm}. */
    Path link(Path target) {
        return link(name("link"), target);
    }

    /**
     * Paths in {@code /dev/shm} that reach {@code target} (a file outside) through a symbolic link
     * at each place a host could put one, by what each shows: a link directly in {@code /dev/shm},
     * a link in a subdirectory of it (which {@code protected_symlinks} does not cover), a path
     * whose directory is a link.
     */
    Map<String, Path> pathsThroughLinksTo(Path target) {
        Path sub = directory();
        Map<String, Path> paths = new LinkedHashMap<>();
        paths.put("a link in /dev/shm", link(target));
        paths.put("a link in a subdirectory of /dev/shm", link(sub.resolve("link"), target));
        paths.put(
                "a path whose directory is a link",
                link(sub.resolve("hop"), target.getParent()).resolve(target.getFileName()));
        return paths;
    }

    /** A symbolic link at {@code at} (in a directory of this scratch) to {@code target}. */
    static Path link(Path at, Path target) {
        try {
            return Files.createSymbolicLink(at, target);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path write(Path at, byte[] contents) {
        try {
            return Files.write(at, contents);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        while (!made.isEmpty()) {
            Path path = made.pop();
            if (Files.isDirectory(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                deleteTree(path);
            } else {
                Files.deleteIfExists(path);
            }
        }
    }

    /** Deletes a directory and what is in it; links are deleted, not followed. */
    private static void deleteTree(Path root) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
