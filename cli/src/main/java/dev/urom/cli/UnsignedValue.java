// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import java.math.BigInteger;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A 64-bit value given on the command line as an unsigned number: decimal (0 to 2^64-1) or {@code
 * 0x} hex (up to 16 digits). It prints back unsigned, in the base it was given in. Immutable.
 *
 * @param bits the 64 bits, as a (possibly negative) long
 * @param hex whether it was given in hex
 */
record UnsignedValue(long bits, boolean hex) {
    private static final BigInteger LIMIT = BigInteger.ONE.shiftLeft(64);

    /**
     * Reads {@code text}.
     *
     * @throws IllegalArgumentException with one line saying why {@code text} is not such a value
     */
    static UnsignedValue parse(String text) {
        String trimmed = text.strip();
        boolean hex = trimmed.startsWith("0x") || trimmed.startsWith("0X");
        String digits = hex ? trimmed.substring(2) : trimmed;
        int radix = hex ? 16 : 10;
        if (digits.isEmpty()) {
            throw new IllegalArgumentException("'" + text + "' has no digits");
        }
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), radix) < 0) {
                throw new IllegalArgumentException("'" + text + "' is not an unsigned " + (hex ? "hex" : "decimal")
                        + " number ('" + digits.charAt(i) + "' is not a " + (hex ? "hex" : "decimal") + " digit)");
            }
        }
        BigInteger value = new BigInteger(digits, radix);
        if (value.compareTo(LIMIT) >= 0) {
            throw new IllegalArgumentException(
                    "'" + text + "' is more than 64 bits (at most 18446744073709551615 or 0xffffffffffffffff)");
        }
        return new UnsignedValue(value.longValue(), hex);
    }

    @Override
    public String toString() {
        return hex ? "0x" + Long.toHexString(bits) : Long.toUnsignedString(bits);
    }

    /** Picocli's converter for options of this type: a bad value is a usage error naming the option and the reason. */
    static final class Converter implements ITypeConverter<UnsignedValue> {
        @Override
        public UnsignedValue convert(String text) {
            try {
                return parse(text);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
