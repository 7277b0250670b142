// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The C programs that the bench module's build compiles (bench/src/main/c) next to the jar: finding
 * them, and reading their one result line {@code "<word> key=value key=value ..."}.
 *
 * <p>Stateless. Failures throw {@link IllegalStateException} with one line naming the program.
 */
final class NativePrograms {
    private NativePrograms() {}

    /**
     * The program {@code name}: at system property {@code property} when set, otherwise next to the
     * jar (or classes folder) this class was loaded from, where the build puts it.
     */
    static Path locate(String name, String property) {
        String configured = System.getProperty(property);
        Path program;
        if (configured != null && !configured.isBlank()) {
            program = Path.of(configured).toAbsolutePath();
        } else {
            try {
                Path codeSource = Path.of(NativePrograms.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI());
                program = codeSource.toAbsolutePath().getParent().resolve(name);
            } catch (URISyntaxException | SecurityException e) {
                throw new IllegalStateException("cannot tell where " + name + " is; set -D" + property + "=<path>");
            }
        }
        if (!Files.isExecutable(program)) {
            throw new IllegalStateException(program + " is missing or not executable; build the bench module"
                    + " (mvn -o package -pl bench) or set -D" + property + "=<path>");
        }
        return program;
    }

    /**
     * The fields of {@code line}, which {@code program} printed and which must start with the word
     * {@code kind}.
     */
    static Map<String, String> parseLine(String program, String kind, String line) {
        String[] words = line.split("\\s+");
        if (words.length < 2 || !words[0].equals(kind)) {
            throw new IllegalStateException(
                    program + " " + kind + " printed '" + line + "', not a " + kind + " result");
        }
        Map<String, String> fields = new HashMap<>();
        for (int i = 1; i < words.length; i++) {
            int equals = words[i].indexOf('=');
            if (equals <= 0) {
                throw new IllegalStateException(program + " " + kind + " printed '" + words[i] + "', not key=value");
            }
            fields.put(words[i].substring(0, equals), words[i].substring(equals + 1));
        }
        return fields;
    }

    /** The field {@code key} of a result line of {@code program}. */
    static String field(String program, Map<String, String> fields, String key) {
        String value = fields.get(key);
        if (value == null) {
            throw new IllegalStateException(program + " printed no " + key);
        }
        return value;
    }

    /** The field {@code key}, a number. */
    static double number(String program, Map<String, String> fields, String key) {
        String value = field(program, fields, key);
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalStateException(program + " printed " + key + "=" + value + ", not a number");
        }
    }
}
