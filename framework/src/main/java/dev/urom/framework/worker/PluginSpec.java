// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * One plugin a worker must load, as the daemon names it on the worker's command line: a {@code
 * path:id} item, the absolute path of the plugin file and the plugin's id (one bit, decimal or
 * {@code 0x} hexadecimal, unsigned 64-bit).
 *
 * <p>{@link #toString()} writes the item that {@link #parse} reads back to an equal spec. Immutable;
 * safe to share between threads.
 *
 * @param path the plugin file, absolute
 * @param id the plugin id, a single bit
 */
public record PluginSpec(Path path, long id) {
    public PluginSpec {
        requireNonNull(path, "path is null");
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("plugin path '" + path + "' is not absolute");
        }
        if (Long.bitCount(id) != 1) {
            throw new IllegalArgumentException("plugin id " + formatId(id) + " of '" + path + "' is not a single bit");
        }
    }

    /**
     * Reads one {@code path:id} item. The item is split at its last {@code :}, so a path may hold
     * colons of its own.
     *
     * @throws IllegalArgumentException one line naming the item and what is wrong with it
     */
    public static PluginSpec parse(String item) {
        requireNonNull(item, "item is null");
        int colon = item.lastIndexOf(':');
        if (colon < 0) {
            throw invalid(item, "it has no ':' between the path and the id");
        }
        String pathText = item.substring(0, colon);
        String idText = item.substring(colon + 1);
        if (pathText.isEmpty()) {
            throw invalid(item, "the path is empty");
        }
        Path path;
        try {
            path = Path.of(pathText);
        } catch (InvalidPathException e) {
            throw invalid(item, "the path is not valid (" + e.getReason() + ")");
        }
        if (!path.isAbsolute()) {
            throw invalid(item, "the path is not absolute");
        }
        long id = parseId(item, idText);
        if (Long.bitCount(id) != 1) {
            throw invalid(item, "the id " + formatId(id) + " is not a single bit");
        }
        return new PluginSpec(path, id);
    }

    /**
     * Reads the items of a worker's command line, in order.
     *
     * @throws IllegalArgumentException one line naming the first bad item, or the two items that
     *     share an id or a path
     */
    public static List<PluginSpec> parseAll(List<String> items) {
        requireNonNull(items, "items is null");
        List<PluginSpec> specs = new ArrayList<>(items.size());
        for (String item : items) {
            specs.add(parse(item));
        }
        checkDistinct(specs, items::get);
        return List.copyOf(specs);
    }

    /**
     * Checks that no two specs share an id or a path (compared normalized).
     *
     * @throws IllegalArgumentException one line naming the two items
     */
    public static void requireDistinct(List<PluginSpec> specs) {
        requireNonNull(specs, "specs is null");
        checkDistinct(specs, i -> specs.get(i).toString());
    }

    private static void checkDistinct(List<PluginSpec> specs, IntFunction<String> itemText) {
        Map<Long, Integer> byId = new HashMap<>();
        Map<Path, Integer> byPath = new HashMap<>();
        for (int i = 0; i < specs.size(); i++) {
            PluginSpec spec = requireNonNull(specs.get(i), "spec is null");
            Integer sameId = byId.putIfAbsent(spec.id(), i);
            if (sameId != null) {
                throw invalid(
                        itemText.apply(i),
                        "its id " + formatId(spec.id()) + " is already given to '" + itemText.apply(sameId) + "'");
            }
            Integer samePath = byPath.putIfAbsent(spec.path().normalize(), i);
            if (samePath != null) {
                throw invalid(itemText.apply(i), "its path is already loaded by '" + itemText.apply(samePath) + "'");
            }
        }
    }

    /** The plugin's name: its file name without the extension. */
    public String name() {
        String file = path.getFileName() == null
                ? path.toString()
                : path.getFileName().toString();
        int dot = file.lastIndexOf('.');
        return dot > 0 ? file.substring(0, dot) : file;
    }

    /** The {@code path:id} item, with the id in unsigned decimal. */
    @Override
    public String toString() {
        return path + ":" + Long.toUnsignedString(id);
    }

    /** {@code id} as {@code 0x} hexadecimal, the form messages use. */
    static String formatId(long id) {
        return "0x" + Long.toHexString(id);
    }

    private static long parseId(String item, String idText) {
        boolean hex = idText.startsWith("0x") || idText.startsWith("0X");
        String digits = hex ? idText.substring(2) : idText;
        int radix = hex ? 16 : 10;
        if (digits.isEmpty()) {
            throw invalid(item, hex ? "the id '" + idText + "' has no hexadecimal digits" : "the id is empty");
        }
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), radix) < 0 || digits.charAt(i) > 0x7f) {
                throw invalid(
                        item,
                        "the id '" + idText + "' is not an unsigned " + (hex ? "hexadecimal" : "decimal") + " number");
            }
        }
        try {
            return Long.parseUnsignedLong(digits, radix);
        } catch (NumberFormatException e) {
            throw invalid(item, "the id '" + idText + "' does not fit in 64 bits");
        }
    }

    private static IllegalArgumentException invalid(String item, String reason) {
        return new IllegalArgumentException("plugin item '" + item + "' is invalid: " + reason);
    }
}
