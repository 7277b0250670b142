// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * A set of cpu numbers in the kernel's list form ({@code 0-3,8,10-11}), as {@code
 * Cpus_allowed_list} of {@code /proc/<pid>/status} shows it. {@link #toString()} gives the text
 * it was read from. Immutable.
 */
final class CpuSet {
    private final BitSet cpus;
    private final String text;

    private CpuSet(BitSet cpus, String text) {
        this.cpus = cpus;
        this.text = text;
    }

    /**
     * Parses a cpu list.
     *
     * @throws IllegalArgumentException one line naming the list and the bad item
     */
    static CpuSet parse(String list) {
        String text = list.strip();
        BitSet cpus = new BitSet();
        if (text.isEmpty()) {
            return new CpuSet(cpus, text);
        }
        for (String item : text.split(",")) {
            try {
                int dash = item.indexOf('-');
                int first = Integer.parseInt(dash < 0 ? item : item.substring(0, dash));
                int last = dash < 0 ? first : Integer.parseInt(item.substring(dash + 1));
                if (first < 0 || last < first) {
                    throw new NumberFormatException();
                }
                cpus.set(first, last + 1);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("cpu list '" + text + "' has an invalid item '" + item + "'");
            }
        }
        return new CpuSet(cpus, text);
    }

    /**
     * The cpus this process may run on: {@code Cpus_allowed_list} of {@code /proc/self/status};
     * where that cannot be read, cpus 0 to the number of available processors less one.
     */
    static CpuSet ofThisProcess() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Cpus_allowed_list:")) {
                    return parse(line.substring("Cpus_allowed_list:".length()));
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            // fall through to the processor count
        }
        int n = Runtime.getRuntime().availableProcessors();
        return parse(n == 1 ? "0" : "0-" + (n - 1));
    }

    boolean contains(int cpu) {
        return cpu >= 0 && cpus.get(cpu);
    }

    /** The cpus, ascending. */
    List<Integer> toList() {
        return cpus.stream().boxed().toList();
    }

    @Override
    public String toString() {
        return text;
    }
}
