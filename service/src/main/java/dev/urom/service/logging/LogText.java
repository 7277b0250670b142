// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.logging;

import java.util.Locale;

/**
 * Text that a host (or anything else outside the daemon) supplied, made safe for one log line:
 * {@link #cut} escapes what a terminal or a log reader would not show as itself and keeps at most
 * {@value #MAX_CHARS} characters.
 *
 * <p>Escapes: a newline, carriage return and tab become {@code \n}, {@code \r}, {@code \t}; any
 * other ASCII control character (U+0000 to U+001F, U+007F) becomes {@code \xNN} (two upper-case
 * hex digits); any other code point that is not printable (C1 controls, format characters such as
 * U+202E RIGHT-TO-LEFT OVERRIDE, the line and paragraph separators U+2028 and U+2029, private-use
 * and unassigned code points, and a surrogate without its pair) becomes <code>&#92;u{X}</code> (upper-case
 * hex, no leading zeros). Everything else, the backslash included, is kept as it is, so the result
 * is readable but not always reversible.
 *
 * <p>Stateless and thread-safe.
 */
public final class LogText {
    /** The most characters of (escaped) text a result holds before its cut marker. */
    public static final int MAX_CHARS = 200;

    private static final String HEX_DIGITS = "0123456789ABCDEF";

    private LogText() {}

    /**
     * {@code text} escaped (see the class comment) and, when the escaped text is longer than
     * {@value #MAX_CHARS} characters, cut after the last whole escape or character that fits,
     * followed by {@link #marker}: {@code … (N more characters)}, N counting the input's {@code
     * char}s left out.
     * An escape is never split. {@code null} gives {@code "null"}, as string concatenation would.
     *
     * @return a string without control characters, at most {@value #MAX_CHARS} characters plus the
     *     marker; {@code text} itself (as a string) when it is short and printable
     */
    public static String cut(CharSequence text) {
        if (text == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_CHARS) + 32);
        int i = 0;
        while (i < text.length()) {
            int codePoint = Character.codePointAt(text, i);
            int charCount = Character.charCount(codePoint);
            int before = out.length();
            appendEscaped(out, codePoint, text, i, charCount);
            if (out.length() > MAX_CHARS) {
                out.setLength(before);
                return out.append(marker(text.length() - i)).toString();
            }
            i += charCount;
        }
        return out.toString();
    }

    /** What {@link #cut} puts after a cut text: {@code … (N more characters)}. */
    public static String marker(int charsLeftOut) {
        return "… (" + charsLeftOut + (charsLeftOut == 1 ? " more character)" : " more characters)");
    }

    private static void appendEscaped(StringBuilder out, int codePoint, CharSequence text, int start, int charCount) {
        switch (codePoint) {
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            default -> {
                if (codePoint < 0x20 || codePoint == 0x7F) {
                    out.append("\\x")
                            .append(HEX_DIGITS.charAt(codePoint >> 4))
                            .append(HEX_DIGITS.charAt(codePoint & 0xF));
                } else if (printable(codePoint)) {
                    out.append(text, start, start + charCount);
                } else {
                    out.append("\\u{")
                            .append(Integer.toHexString(codePoint).toUpperCase(Locale.ROOT))
                            .append('}');
                }
            }
        }
    }

    private static boolean printable(int codePoint) {
        switch (Character.getType(codePoint)) {
            case Character.CONTROL,
                    Character.FORMAT,
                    Character.SURROGATE,
                    Character.PRIVATE_USE,
                    Character.UNASSIGNED,
                    Character.LINE_SEPARATOR,
                    Character.PARAGRAPH_SEPARATOR:
                return false;
            default:
                return true;
        }
    }
}
