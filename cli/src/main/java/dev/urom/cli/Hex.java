// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import java.util.HexFormat;

/** Hexadecimal payloads on the command line. */
final class Hex {
    private Hex() {}

    /**
     * Parses command bytes given as hex; an optional 0x prefix and any whitespace are allowed.
     *
     * @throws CliFailure naming the option and what is wrong with the text
     */
    static byte[] parse(String option, String text) {
        String digits = text.strip().replaceAll("\\s+", "");
        if (digits.startsWith("0x") || digits.startsWith("0X")) {
            digits = digits.substring(2);
        }
        if (digits.length() % 2 != 0) {
            throw CliFailure.usage(option + " '" + text + "': odd number of hex digits (" + digits.length() + ")");
        }
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), 16) < 0) {
                throw CliFailure.usage(option + " '" + text + "': '" + digits.charAt(i) + "' is not a hex digit");
            }
        }
        return HexFormat.of().parseHex(digits);
    }

    static String format(byte[] bytes) {
        return bytes.length == 0 ? "(empty)" : HexFormat.of().formatHex(bytes);
    }
}
