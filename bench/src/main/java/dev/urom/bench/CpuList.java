// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A set of CPU numbers written as {@code taskset -c} and the kernel write them ({@code 0-3,8,10-11}):
 * parsing, formatting, and this process's allowed CPUs.
 *
 * <p>Immutable. {@link #parse} throws {@link IllegalArgumentException} with one line naming the
 * text; {@link #allowed} throws {@link IllegalStateException} when the kernel does not say.
 *
 * @param cpus the CPU numbers, rising, without repeats
 */
record CpuList(List<Integer> cpus) {
    /** The most CPU number taken, well above any machine's. */
    static final int MAX_CPU = 65_535;

    CpuList {
        cpus = List.copyOf(new TreeSet<>(cpus));
    }

    /**
     * The CPUs of {@code text}: comma-separated numbers and ranges {@code A-B} (A ≤ B).
     *
     * @throws IllegalArgumentException when it is empty or anything in it is not a number or a range
     */
    static CpuList parse(String text) {
        List<Integer> cpus = new ArrayList<>();
        if (text.isBlank()) {
            throw new IllegalArgumentException("'" + text + "' is not a CPU list (0-3,8)");
        }
        for (String part : text.split(",", -1)) {
            String[] ends = part.split("-", -1);
            if (ends.length > 2) {
                throw new IllegalArgumentException("'" + text + "' is not a CPU list (0-3,8)");
            }
            int from = cpu(text, ends[0]);
            int to = ends.length == 2 ? cpu(text, ends[1]) : from;
            if (to < from) {
                throw new IllegalArgumentException("'" + text + "' has a range that goes down: " + part);
            }
            for (int c = from; c <= to; c++) {
                cpus.add(c);
            }
        }
        return new CpuList(cpus);
    }

    private static int cpu(String text, String number) {
        try {
            int cpu = Integer.parseInt(number.strip());
            if (cpu >= 0 && cpu <= MAX_CPU && !number.strip().startsWith("+")) {
                return cpu;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException("'" + text + "' is not a CPU list (0-3,8)");
    }

    /** The CPUs this process may run on: {@code Cpus_allowed_list} of {@code /proc/self/status}. */
    static CpuList allowed() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parse(line.substring("Cpus_allowed_list:".length()).strip());
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException(
                    "cannot read this process's allowed CPUs from /proc/self/status: " + e.getMessage());
        }
        throw new IllegalStateException("/proc/self/status names no Cpus_allowed_list");
    }

    int size() {
        return cpus.size();
    }

    boolean containsAll(CpuList other) {
        return cpus.containsAll(other.cpus);
    }

    /** Whether no CPU is in both. */
    boolean disjoint(CpuList other) {
        return other.cpus.stream().noneMatch(cpus::contains);
    }

    /** The first {@code n} CPUs. */
    CpuList first(int n) {
        return new CpuList(cpus.subList(0, n));
    }

    /** These CPUs without those of {@code other}. */
    CpuList minus(CpuList other) {
        return new CpuList(cpus.stream().filter(c -> !other.cpus.contains(c)).toList());
    }

    /** These CPUs and those of {@code other}. */
    CpuList plus(CpuList other) {
        List<Integer> all = new ArrayList<>(cpus);
        all.addAll(other.cpus);
        return new CpuList(all);
    }

    /** The list as {@code taskset -c} takes it, consecutive CPUs as ranges: {@code 0-3,8}. */
    @Override
    public String toString() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < cpus.size(); i++) {
            int from = cpus.get(i);
            int to = from;
            while (i + 1 < cpus.size() && cpus.get(i + 1) == to + 1) {
                to = cpus.get(++i);
            }
            out.append(out.length() == 0 ? "" : ",").append(from).append(from == to ? "" : "-" + to);
        }
        return out.toString();
    }
}
