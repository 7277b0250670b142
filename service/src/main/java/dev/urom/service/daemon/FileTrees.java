// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/** Deleting the daemon's directories. Stateless. */
final class FileTrees {
    private FileTrees() {}

    /**
     * Deletes {@code dir} and everything in it, following no symbolic link (a link is deleted, not
     * its target). Entries that vanish meanwhile (a worker that ends removes its own socket) are
     * fine; a missing {@code dir} is nothing to do.
     *
     * @throws IOException when an entry cannot be read or deleted
     */
    static void delete(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        List<Path> deepestFirst = new ArrayList<>();
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                deepestFirst.add(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, IOException e) throws IOException {
                if (e != null && !(e instanceof NoSuchFileException)) {
                    throw e;
                }
                deepestFirst.add(directory);
                return FileVisitResult.CONTINUE;
            }
        });
        for (Path path : deepestFirst) {
            Files.deleteIfExists(path);
        }
    }
}
