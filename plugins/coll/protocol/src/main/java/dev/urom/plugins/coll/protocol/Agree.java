// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static dev.urom.plugins.coll.protocol.CollLayout.*;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One agreement round's state ({@code struct urom_coll_agree}): per {@link AgreeField} the least
 * and the greatest value seen (unsigned 64-bit), and {@code refused}, 0 or 1 + the lowest rank
 * that refused its own arguments, with that rank's reason code. Immutable: {@link #merge} returns
 * a new state.
 */
public record Agree(long[] min, long[] max, long refused, long refusedReason) {
    public Agree {
        if (min.length != AGREE_FIELDS || max.length != AGREE_FIELDS) {
            throw new IllegalArgumentException("an agreement has " + AGREE_FIELDS + " fields");
        }
        if (refused < 0 || refused > CollCommand.U32_MAX || refusedReason < 0 || refusedReason > CollCommand.U32_MAX) {
            throw new IllegalArgumentException(
                    "refused " + refused + " or its reason " + refusedReason + " is not a uint32_t");
        }
        min = min.clone();
        max = max.clone();
    }

    /**
     * A rank's own state before the first round: its fields as both min and max (a field the
     * collective ignores passed as 0), refusing with {@code reason} (not NONE) or not (NONE).
     */
    public static Agree own(long coll, long dtype, long op, long root, long count, long rank, Reason reason) {
        long[] values = {coll, dtype, op, root, count};
        boolean refuses = reason != Reason.NONE;
        return new Agree(values, values, refuses ? rank + 1 : 0, refuses ? reason.code() : 0);
    }

    @Override
    public long[] min() {
        return min.clone();
    }

    @Override
    public long[] max() {
        return max.clone();
    }

    /** Both states merged: the least of the mins, the greatest of the maxes, the lower refusing rank with its reason
     * (one rank refusing with two reasons, which no rank does, keeps the lower reason). */
    public Agree merge(Agree other) {
        long[] lo = new long[AGREE_FIELDS];
        long[] hi = new long[AGREE_FIELDS];
        for (int i = 0; i < AGREE_FIELDS; i++) {
            lo[i] = Long.compareUnsigned(min[i], other.min[i]) <= 0 ? min[i] : other.min[i];
            hi[i] = Long.compareUnsigned(max[i], other.max[i]) >= 0 ? max[i] : other.max[i];
        }
        boolean mine = refused != 0
                && (other.refused == 0
                        || refused < other.refused
                        || (refused == other.refused && refusedReason <= other.refusedReason));
        Agree from = mine || other.refused == 0 ? this : other;
        return new Agree(lo, hi, from.refused, from.refusedReason);
    }

    /** The rank that refused (the lowest known), or -1 when none did. */
    public long refusingRank() {
        return refused == 0 ? -1 : refused - 1;
    }

    /** The first field whose min and max differ, or null when all agree. */
    public AgreeField firstMismatch() {
        for (AgreeField field : AgreeField.values()) {
            if (min[field.index()] != max[field.index()]) {
                return field;
            }
        }
        return null;
    }

    public byte[] encode() {
        ByteBuffer b = Wire.allocate(AGREE_SIZE);
        write(b, 0);
        return b.array();
    }

    /** Writes the state at {@code offset} of {@code b} (little-endian, whatever {@code b}'s order). */
    public void write(ByteBuffer b, int offset) {
        ByteBuffer le = b.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < AGREE_FIELDS; i++) {
            le.putLong(offset + AGREE_MIN + 8 * i, min[i]);
            le.putLong(offset + AGREE_MAX + 8 * i, max[i]);
        }
        le.putInt(offset + AGREE_REFUSED, (int) refused).putInt(offset + AGREE_REFUSED_REASON, (int) refusedReason);
    }

    /**
     * The state in {@code bytes}.
     *
     * @throws CollProtocolException BAD_COMMAND for a wrong length
     */
    public static Agree decode(byte[] bytes) throws CollProtocolException {
        Wire.length("AGREE", bytes, AGREE_SIZE);
        return read(Wire.le(bytes), 0);
    }

    /** The state at {@code offset} of {@code b} (little-endian, whatever {@code b}'s order). */
    public static Agree read(ByteBuffer b, int offset) {
        ByteBuffer le = b.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long[] lo = new long[AGREE_FIELDS];
        long[] hi = new long[AGREE_FIELDS];
        for (int i = 0; i < AGREE_FIELDS; i++) {
            lo[i] = le.getLong(offset + AGREE_MIN + 8 * i);
            hi[i] = le.getLong(offset + AGREE_MAX + 8 * i);
        }
        return new Agree(
                lo,
                hi,
                Integer.toUnsignedLong(le.getInt(offset + AGREE_REFUSED)),
                Integer.toUnsignedLong(le.getInt(offset + AGREE_REFUSED_REASON)));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Agree a
                && Arrays.equals(min, a.min)
                && Arrays.equals(max, a.max)
                && refused == a.refused
                && refusedReason == a.refusedReason;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(min) * 31 + Arrays.hashCode(max) + Long.hashCode(refused);
    }

    @Override
    public String toString() {
        return "Agree[min=" + Arrays.toString(min) + ", max=" + Arrays.toString(max) + ", refused=" + refused
                + ", reason=" + refusedReason + "]";
    }
}
