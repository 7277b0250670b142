// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/** The datatypes ({@code enum urom_coll_dtype}) with their wire codes and element sizes. Immutable. */
public enum DataType {
    INT8(0, 1, Kind.SIGNED),
    INT16(1, 2, Kind.SIGNED),
    INT32(2, 4, Kind.SIGNED),
    INT64(3, 8, Kind.SIGNED),
    UINT8(4, 1, Kind.UNSIGNED),
    UINT16(5, 2, Kind.UNSIGNED),
    UINT32(6, 4, Kind.UNSIGNED),
    UINT64(7, 8, Kind.UNSIGNED),
    FLOAT32(8, 4, Kind.FLOAT),
    FLOAT64(9, 8, Kind.FLOAT);

    /** How the elements' bits are read. */
    public enum Kind {
        SIGNED,
        UNSIGNED,
        FLOAT
    }

    private static final DataType[] BY_CODE = values();

    private final int code;
    private final int size;
    private final Kind kind;

    DataType(int code, int size, Kind kind) {
        this.code = code;
        this.size = size;
        this.kind = kind;
    }

    public int code() {
        return code;
    }

    /** Bytes per element. */
    public int size() {
        return size;
    }

    public Kind kind() {
        return kind;
    }

    public boolean isInteger() {
        return kind != Kind.FLOAT;
    }

    /** The datatype with this code, or null when there is none. */
    public static DataType ofCode(long code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[(int) code] : null;
    }
}
