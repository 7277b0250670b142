// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * What Linux's {@code /proc} says about a process: its resident set, open descriptors and threads
 * ({@code /proc/PID/status}, {@code /proc/PID/fd}), its proportional set ({@code
 * /proc/PID/smaps_rollup}), and its children with their states ({@code
 * /proc/PID/stat} of every process). Reading another user's {@code fd} folder takes the rights to
 * it (the same user, or root). Stateless; a process that ends while it is read is reported absent.
 */
final class ProcFacts {
    private static final Path PROC = Path.of("/proc");

    private ProcFacts() {}

    /** One process's use: resident set in KiB, open file descriptors, threads. */
    record Usage(long rssKb, int fds, int threads) {}

    /** A child process and its state letter ({@code Z} a zombie). */
    record Child(long pid, char state) {
        boolean zombie() {
            return state == 'Z';
        }
    }

    /** The use of process {@code pid}; empty when it is gone. */
    static Optional<Usage> usage(long pid) {
        Path dir = PROC.resolve(Long.toString(pid));
        try {
            long rss = 0;
            int threads = 0;
            for (String line : Files.readAllLines(dir.resolve("status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.substring(6).strip().split("\\s+")[0]);
                } else if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.substring(8).strip());
                }
            }
            int fds;
            try (Stream<Path> entries = Files.list(dir.resolve("fd"))) {
                fds = (int) entries.count();
            }
            return Optional.of(new Usage(rss, fds, threads));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * A process's memory in KiB, from {@code /proc/PID/smaps_rollup}: its resident set, and its
     * proportional set (each resident page divided by the processes that map it), in all, of
     * anonymous memory and of files.
     */
    record Memory(long rssKb, long pssKb, long pssAnonKb, long pssFileKb) {}

    /** The memory of process {@code pid}; empty when it is gone or its smaps cannot be read. */
    static Optional<Memory> memory(long pid) {
        try {
            return Optional.of(
                    memory(Files.readAllLines(PROC.resolve(Long.toString(pid)).resolve("smaps_rollup"))));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The figures of the lines of an {@code smaps_rollup} file ({@code "Pss_Anon:  1234 kB"}); a line that is missing counts 0. */
    static Memory memory(List<String> smapsRollup) {
        long[] kb = new long[4];
        List<String> names = List.of("Rss:", "Pss:", "Pss_Anon:", "Pss_File:");
        for (String line : smapsRollup) {
            String[] fields = line.strip().split("\\s+");
            int index = names.indexOf(fields[0]);
            if (index >= 0 && fields.length >= 2) {
                kb[index] = Long.parseLong(fields[1]);
            }
        }
        return new Memory(kb[0], kb[1], kb[2], kb[3]);
    }

    /** The children of process {@code parent}, zombies included. */
    static List<Child> children(long parent) {
        List<Child> children = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(
                PROC, p -> p.getFileName().toString().chars().allMatch(Character::isDigit))) {
            for (Path entry : entries) {
                stat(entry).filter(s -> s.parent == parent).ifPresent(s -> children.add(new Child(s.pid, s.state)));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc: " + e.getMessage());
        }
        return children;
    }

    private record Stat(long pid, char state, long parent) {}

    /**
     * The fields of a {@code /proc/PID/stat} line {@code "PID (NAME) STATE PPID ..."} after the name,
     * the state first: the name may hold blanks and parentheses, so they are counted from its last
     * {@code ')'}. Empty when the line has no name.
     */
    static String[] statFieldsAfterName(String line) {
        int nameEnd = line.lastIndexOf(')');
        return nameEnd < 0 ? new String[0] : line.substring(nameEnd + 1).trim().split(" ");
    }

    private static Optional<Stat> stat(Path dir) {
        try {
            String[] fields = statFieldsAfterName(Files.readString(dir.resolve("stat")));
            return Optional.of(new Stat(
                    Long.parseLong(dir.getFileName().toString()), fields[0].charAt(0), Long.parseLong(fields[1])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
