// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/** The reduction operations ({@code enum urom_coll_op}) with their wire codes. Immutable. */
public enum ReduceOp {
    SUM(0),
    PROD(1),
    MIN(2),
    MAX(3),
    BAND(4),
    BOR(5),
    BXOR(6);

    private static final ReduceOp[] BY_CODE = values();

    private final int code;

    ReduceOp(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** Whether the operation takes integers only (BAND, BOR, BXOR). */
    public boolean bitwise() {
        return this == BAND || this == BOR || this == BXOR;
    }

    /** The operation with this code, or null when there is none. */
    public static ReduceOp ofCode(long code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[(int) code] : null;
    }
}
