// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The message of a plugin's failure, made fit for one log line and for the payload of the worker's
 * failure answer: every control character (line breaks included) and the Unicode line and paragraph
 * separators become a space, and the text is cut to at most {@value #MAX_CHARS} characters, a cut
 * one ending in {@code …}. Stateless and thread-safe.
 */
public final class FailureText {
    /** The most characters a {@link #oneLine} result holds, its cut marker included. */
    static final int MAX_CHARS = 300;

    private static final String CUT = "…";

    private FailureText() {}

    /** {@code text} on one line of at most {@value #MAX_CHARS} characters; {@code null} gives {@code ""}. */
    public static String oneLine(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_CHARS));
        for (int i = 0; i < text.length(); ) {
            int codePoint = text.codePointAt(i);
            int width = Character.charCount(codePoint);
            if (out.length() + width > MAX_CHARS - CUT.length() && i + width < text.length()) {
                return out.append(CUT).toString();
            }
            boolean breaks = Character.isISOControl(codePoint) || codePoint == 0x2028 || codePoint == 0x2029;
            if (breaks) {
                out.append(' ');
            } else {
                out.appendCodePoint(codePoint);
            }
            i += width;
        }
        return out.toString();
    }

    /** The UTF-8 bytes of {@code line}, cut at a character boundary to at most {@code maxBytes} bytes. */
    static byte[] utf8(String line, int maxBytes) {
        if (maxBytes <= 0) {
            return new byte[0];
        }
        CharsetEncoder encoder = StandardCharsets.UTF_8
                .newEncoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer out = ByteBuffer.allocate(maxBytes);
        encoder.encode(CharBuffer.wrap(line), out, true);
        byte[] bytes = new byte[out.position()];
        out.flip().get(bytes);
        return bytes;
    }
}
