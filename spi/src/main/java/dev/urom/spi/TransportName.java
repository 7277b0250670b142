// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import java.util.Optional;

/**
 * The rule for a transport name ({@code urom_plugin_get_transport}, {@link PluginIface#transport()}):
 * 1 to {@value #MAX_LENGTH} ASCII characters from {@code [A-Za-z0-9._:/-]}. Plugins that name the
 * same transport can read each other's addresses.
 *
 * <p>Stateless and thread-safe.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class TransportName {
    /** The longest transport name, in characters (bytes: the name is ASCII). */
    public static final int MAX_LENGTH = 64;

    private TransportName() {}

    /**
     * Why {@code name} is not a transport name, in a few words fit to follow "the transport name";
     * empty when it is one.
     */
    public static Optional<String> problem(String name) {
        if (name == null) {
            return Optional.of("is null");
        }
        if (name.isEmpty()) {
            return Optional.of("is empty");
        }
        if (name.length() > MAX_LENGTH) {
            return Optional.of("has " + name.length() + " characters, more than " + MAX_LENGTH);
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!allowed(c)) {
                return Optional.of("has character " + describe(c) + " at index " + i + ", not one of [A-Za-z0-9._:/-]");
            }
        }
        return Optional.empty();
    }

    /** Whether {@code name} is a transport name. */
    public static boolean isValid(String name) {
        return problem(name).isEmpty();
    }

    private static boolean allowed(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || c == '.'
                || c == '_'
                || c == ':'
                || c == '/'
                || c == '-';
    }

    private static String describe(char c) {
        return c >= 0x21 && c < 0x7f ? "'" + c + "'" : String.format("U+%04X", (int) c);
    }
}
