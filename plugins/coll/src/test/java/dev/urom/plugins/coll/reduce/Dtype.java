// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.reduce;

/** The datatypes of urom_coll.h, with what the tests need to know of each; immutable. */
enum Dtype {
    INT8(0, 1, false, false),
    INT16(1, 2, false, false),
    INT32(2, 4, false, false),
    INT64(3, 8, false, false),
    UINT8(4, 1, true, false),
    UINT16(5, 2, true, false),
    UINT32(6, 4, true, false),
    UINT64(7, 8, true, false),
    FLOAT32(8, 4, false, true),
    FLOAT64(9, 8, false, true);

    static final int SUM = 0;
    static final int PROD = 1;
    static final int MIN = 2;
    static final int MAX = 3;
    static final int BAND = 4;
    static final int BOR = 5;
    static final int BXOR = 6;
    static final String[] OP_NAMES = {"SUM", "PROD", "MIN", "MAX", "BAND", "BOR", "BXOR"};

    final int code;
    final int size;
    final boolean unsigned;
    final boolean floating;

    Dtype(int code, int size, boolean unsigned, boolean floating) {
        this.code = code;
        this.size = size;
        this.unsigned = unsigned;
        this.floating = floating;
    }

    /** The operations defined for this datatype. */
    int opCount() {
        return floating ? MAX + 1 : BXOR + 1;
    }

    /** All ones in the element's bits. */
    long mask() {
        return size == 8 ? -1L : (1L << (8 * size)) - 1;
    }
}
