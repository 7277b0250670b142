// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/**
 * The fields of an agreement ({@code enum urom_coll_field}), in their order; the code is the
 * {@code detail} of a MISMATCH and {@code code - 1} the field's index in {@link Agree}. Immutable.
 */
public enum AgreeField {
    COLL(1),
    DTYPE(2),
    OP(3),
    ROOT(4),
    COUNT(5);

    private final int code;

    AgreeField(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public int index() {
        return code - 1;
    }
}
