// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import java.util.regex.Pattern;

/**
 * Who is at the other end of a connection, as the daemon and its workers know it after the
 * handshake: a Unix user (its uid, from the kernel's peer credentials of a Unix socket), the holder
 * of a named key (proved in the handshake), or, on a TCP listener the operator opened with {@code
 * --insecure-tcp}, an anonymous client. A worker belongs to the principal that started it.
 *
 * <p>The text form ({@link #text()}) is {@code unix:<uid>}, {@code key:<name>} or {@code
 * anonymous}; {@link #parse} reads it back. Immutable; equal when kind and name are equal.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public record Principal(Kind kind, String name) {
    /** Key names: a letter or digit, then letters, digits, '.', '_' or '-'; at most 64 characters. */
    public static final Pattern KEY_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    /** The anonymous principal of an insecure TCP listener. */
    public static final Principal ANONYMOUS = new Principal(Kind.ANONYMOUS, "");

    /** The kinds of principal. */
    public enum Kind {
        UNIX,
        KEY,
        ANONYMOUS
    }

    public Principal {
        requireNonNull(kind, "kind is null");
        requireNonNull(name, "name is null");
        switch (kind) {
            case UNIX -> {
                if (!name.matches("0|[1-9][0-9]{0,9}") || Long.parseLong(name) > 0xffff_fffeL) {
                    throw new IllegalArgumentException("'" + name + "' is not a Unix uid");
                }
            }
            case KEY -> checkKeyName(name);
            case ANONYMOUS -> {
                if (!name.isEmpty()) {
                    throw new IllegalArgumentException("the anonymous principal has no name");
                }
            }
        }
    }

    /** The Unix user with this uid. */
    public static Principal unix(int uid) {
        return new Principal(Kind.UNIX, Integer.toUnsignedString(uid));
    }

    /**
     * The holder of the key named {@code name}.
     *
     * @throws IllegalArgumentException when the name does not match {@link #KEY_NAME}
     */
    public static Principal key(String name) {
        return new Principal(Kind.KEY, name);
    }

    /**
     * Checks a key name against {@link #KEY_NAME}.
     *
     * @throws IllegalArgumentException one line naming the (cut) text and the rule
     */
    public static String checkKeyName(String name) {
        requireNonNull(name, "name is null");
        if (!KEY_NAME.matcher(name).matches()) {
            String shown = name.length() > 64 ? name.substring(0, 64) + "..." : name;
            throw new IllegalArgumentException("key name '" + shown.replaceAll("\\p{Cntrl}", "?")
                    + "' is not valid (1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit)");
        }
        return name;
    }

    /**
     * Reads {@link #text()} back.
     *
     * @throws IllegalArgumentException when {@code text} is not a principal's text form
     */
    public static Principal parse(String text) {
        requireNonNull(text, "text is null");
        if (text.equals("anonymous")) {
            return ANONYMOUS;
        }
        if (text.startsWith("unix:")) {
            return new Principal(Kind.UNIX, text.substring("unix:".length()));
        }
        if (text.startsWith("key:")) {
            return new Principal(Kind.KEY, text.substring("key:".length()));
        }
        throw new IllegalArgumentException("'" + text + "' is not a principal (unix:UID, key:NAME or anonymous)");
    }

    /** The uid of a Unix principal. @throws IllegalStateException for another kind */
    public int uid() {
        if (kind != Kind.UNIX) {
            throw new IllegalStateException(this + " is not a Unix user");
        }
        return Integer.parseUnsignedInt(name);
    }

    public boolean isUnix() {
        return kind == Kind.UNIX;
    }

    /** {@code unix:<uid>}, {@code key:<name>} or {@code anonymous}. */
    public String text() {
        return switch (kind) {
            case UNIX -> "unix:" + name;
            case KEY -> "key:" + name;
            case ANONYMOUS -> "anonymous";
        };
    }

    @Override
    public String toString() {
        return text();
    }
}
