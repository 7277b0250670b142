// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * A daemon's log file as its tests read it: the lines that hold a piece of text, and the file's size
 * (to measure what one request added). The daemon writes each line with an immediate flush.
 */
public final class DaemonLog {
    private final Path file;

    public DaemonLog(Path file) {
        this.file = file;
    }

    public Path file() {
        return file;
    }

    /** The file's size in bytes now; 0 before it exists. */
    public long size() {
        try {
            return Files.size(file);
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every line now in the file. */
    public List<String> lines() {
        try {
            return Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The lines that hold every one of {@code texts}. */
    public List<String> linesWith(String... texts) {
        return lines().stream().filter(line -> containsAll(line, texts)).toList();
    }

    /** Waits until a line holds every one of {@code texts} and returns the lines that do. */
    public List<String> awaitLinesWith(String... texts) throws InterruptedException {
        Await.until(
                "the daemon's log " + file + " has a line with " + List.of(texts),
                () -> !linesWith(texts).isEmpty());
        return linesWith(texts);
    }

    private static boolean containsAll(String line, String[] texts) {
        for (String text : texts) {
            if (!line.contains(text)) {
                return false;
            }
        }
        return true;
    }
}
