// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What {@code /proc/<pid>} says about a live process: its command line, real/effective/saved/file
 * uids and gids, supplementary groups, {@code NoNewPrivs}, working directory and initial environment.
 * Reading another user's process needs root; a process of the test's own user is readable as it.
 * Each call reads afresh. Stateless and thread-safe.
 */
record OsProcessFacts(long pid) {
    static OsProcessFacts of(ProcessHandle process) {
        return new OsProcessFacts(process.pid());
    }

    private Path proc() {
        return Path.of("/proc", Long.toString(pid));
    }

    /** The words of its command line (empty once it has gone). */
    List<String> commandLine() {
        try {
            String text = Files.readString(proc().resolve("cmdline"), StandardCharsets.UTF_8);
            return text.isEmpty() ? List.of() : List.of(text.split("\0"));
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The values of a {@code /proc/<pid>/status} line such as {@code Uid} or {@code Groups}, split on white space. */
    List<String> status(String field) {
        for (String line : read("status").split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).equals(field)) {
                String values = line.substring(colon + 1).strip();
                return values.isEmpty() ? List.of() : List.of(values.split("\\s+"));
            }
        }
        throw new AssertionError("/proc/" + pid + "/status has no " + field + " line");
    }

    /** Its supplementary groups, sorted. */
    Set<Long> groups() {
        Set<Long> groups = new TreeSet<>();
        status("Groups").forEach(g -> groups.add(Long.parseLong(g)));
        return groups;
    }

    /** Its working directory. */
    Path cwd() {
        try {
            return Files.readSymbolicLink(proc().resolve("cwd"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the working directory of process " + pid, e);
        }
    }

    /** The environment it was started with ({@code /proc/<pid>/environ}), in its order. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String item : read("environ").split("\0")) {
            int equals = item.indexOf('=');
            if (equals > 0) {
                env.put(item.substring(0, equals), item.substring(equals + 1));
            }
        }
        return env;
    }

    private String read(String file) {
        try {
            return new String(Files.readAllBytes(proc().resolve(file)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/" + pid + "/" + file + ": " + e.getMessage(), e);
        }
    }

    /** The four ids of a {@code Uid} or {@code Gid} line, as numbers: real, effective, saved, file system. */
    List<Long> ids(String field) {
        return status(field).stream().map(Long::valueOf).toList();
    }

    @Override
    public String toString() {
        return "process " + pid + " "
                + Arrays.toString(commandLine().stream().limit(3).toArray());
    }
}
