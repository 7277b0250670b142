// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A systemd unit file or environment file read strictly, so that what the tests read is what
 * systemd reads: a unit is {@code [Section]} headers and {@code Key=Value} lines (a key may repeat),
 * an environment file {@code KEY=VALUE} lines; both take comment lines ({@code #} or {@code ;}) and
 * blank lines. Anything this reader would have to interpret as systemd does (line continuations,
 * quotes, backslashes, specifiers, variables in an environment file) is refused with a
 * {@link ManifestException} naming the file and the line, rather than read differently.
 * Immutable.
 */
final class SystemdUnit {
    private static final Pattern SECTION = Pattern.compile("\\[([A-Za-z]+)\\]");
    private static final Pattern ENTRY = Pattern.compile("([A-Za-z][A-Za-z0-9]*)=(.*)");
    private static final Pattern VARIABLE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(.*)");

    private final String source;
    private final Map<String, Map<String, List<String>>> sections;

    private SystemdUnit(String source, Map<String, Map<String, List<String>>> sections) {
        this.source = source;
        this.sections = sections;
    }

    static Path folder() {
        String dir = System.getProperty("urom.systemd.dir");
        if (dir == null || dir.isBlank()) {
            throw new ManifestException("system property urom.systemd.dir is not set: run the tests through Maven");
        }
        return Path.of(dir);
    }

    static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new ManifestException(file + ": cannot be read: " + e.getMessage(), e);
        }
    }

    /** Reads the unit {@code text}; {@code source} names it in messages. */
    static SystemdUnit parse(String source, String text) {
        Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
        Map<String, List<String>> current = null;
        for (Setting setting : settings(source, text)) {
            int number = setting.number();
            String trimmed = setting.text();
            Matcher section = SECTION.matcher(trimmed);
            if (section.matches()) {
                if (sections.containsKey(section.group(1))) {
                    throw new ManifestException(
                            source + ":" + number + ": section [" + section.group(1) + "] appears twice");
                }
                current = new LinkedHashMap<>();
                sections.put(section.group(1), current);
                continue;
            }
            Matcher entry = ENTRY.matcher(trimmed);
            if (!entry.matches()) {
                throw new ManifestException(source + ":" + number + ": neither a [Section] nor Key=Value: " + trimmed);
            }
            if (current == null) {
                throw new ManifestException(
                        source + ":" + number + ": " + entry.group(1) + " comes before any [Section]");
            }
            current.computeIfAbsent(entry.group(1), k -> new ArrayList<>())
                    .add(entry.group(2).strip());
        }
        return new SystemdUnit(source, sections);
    }

    /** Reads the environment file {@code text}: its variables in order; a variable set twice is refused. */
    static Map<String, String> parseEnvironment(String source, String text) {
        Map<String, String> variables = new LinkedHashMap<>();
        for (Setting setting : settings(source, text)) {
            int number = setting.number();
            String trimmed = setting.text();
            if (trimmed.contains("$")) {
                throw new ManifestException(source + ":" + number
                        + ": '$' would be read by systemd's expansion rules, which this reader does not apply");
            }
            Matcher variable = VARIABLE.matcher(trimmed);
            if (!variable.matches()) {
                throw new ManifestException(source + ":" + number + ": not VARIABLE=VALUE: " + trimmed);
            }
            if (variables.put(variable.group(1), variable.group(2).strip()) != null) {
                throw new ManifestException(source + ":" + number + ": " + variable.group(1) + " is set twice");
            }
        }
        return variables;
    }

    /** A line of a unit or environment file that is neither blank nor a comment, stripped, with its number. */
    private record Setting(int number, String text) {}

    /** The settings of {@code text}, each checked for what this reader does not interpret. */
    private static List<Setting> settings(String source, String text) {
        List<Setting> settings = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String trimmed = lines[i].strip();
            if (!trimmed.isEmpty() && !trimmed.startsWith("#") && !trimmed.startsWith(";")) {
                refuseWhatNeedsInterpreting(source, i + 1, trimmed);
                settings.add(new Setting(i + 1, trimmed));
            }
        }
        return settings;
    }

    private static void refuseWhatNeedsInterpreting(String source, int number, String line) {
        if (line.contains("\\") || line.contains("\"") || line.contains("'")) {
            throw new ManifestException(
                    source + ":" + number + ": quotes and backslashes are not read here; write the value plainly");
        }
        if (line.contains("%")) {
            throw new ManifestException(
                    source + ":" + number + ": '%' specifiers are not read here; write the value out");
        }
    }

    String source() {
        return source;
    }

    boolean hasSection(String section) {
        return sections.containsKey(section);
    }

    /** Every value of {@code key} in {@code section}, in order; empty when there is none. */
    List<String> all(String section, String key) {
        return sections.getOrDefault(section, Map.of()).getOrDefault(key, List.of());
    }

    /**
     * The one value of {@code key} in {@code section}.
     *
     * @throws AssertionError naming the unit when the key is missing or given more than once
     */
    String one(String section, String key) {
        List<String> values = all(section, key);
        if (values.size() != 1) {
            throw new AssertionError(
                    source + ": [" + section + "] " + key + "= must be given once, not " + values.size() + " times");
        }
        return values.get(0);
    }
}
