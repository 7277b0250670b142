// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import static dev.urom.plugins.coll.protocol.CollLayout.*;

import java.nio.ByteBuffer;

/**
 * A team-creation greeting ({@code struct urom_coll_hello}): what a rank believes the team to be,
 * with its knobs' effective values, or the reason it refuses the team. Fields the C structure
 * holds as {@code uint32_t} are {@code long}s in {@code [0, 2^32)}. Immutable.
 */
public record Hello(
        long teamId,
        long size,
        long rank,
        long membersHash,
        long chunkBytes,
        long smallBytes,
        long timeoutMs,
        long refused) {
    public Hello {
        for (long v : new long[] {teamId, size, rank, chunkBytes, smallBytes, timeoutMs, refused}) {
            if (v < 0 || v > CollCommand.U32_MAX) {
                throw new IllegalArgumentException("a HELLO field " + v + " is not a uint32_t");
            }
        }
    }

    public byte[] encode() {
        return Wire.allocate(HELLO_SIZE)
                .putShort(HELLO_VERSION, (short) PROTOCOL_VERSION)
                .putInt(HELLO_TEAM_ID, (int) teamId)
                .putInt(HELLO_SIZE_FIELD, (int) size)
                .putInt(HELLO_RANK, (int) rank)
                .putLong(HELLO_MEMBERS_HASH, membersHash)
                .putInt(HELLO_CHUNK_BYTES, (int) chunkBytes)
                .putInt(HELLO_SMALL_BYTES, (int) smallBytes)
                .putInt(HELLO_TIMEOUT_MS, (int) timeoutMs)
                .putInt(HELLO_REFUSED, (int) refused)
                .array();
    }

    /**
     * The HELLO in {@code bytes}.
     *
     * @throws CollProtocolException BAD_COMMAND for a wrong length or version, or reserved bits set
     */
    public static Hello decode(byte[] bytes) throws CollProtocolException {
        Wire.length("HELLO", bytes, HELLO_SIZE);
        ByteBuffer b = Wire.le(bytes);
        Wire.version("the HELLO's", Wire.u16(b, HELLO_VERSION));
        Wire.zero("HELLO reserved", Wire.u16(b, HELLO_RESERVED));
        return new Hello(
                u32(b, HELLO_TEAM_ID),
                u32(b, HELLO_SIZE_FIELD),
                u32(b, HELLO_RANK),
                b.getLong(HELLO_MEMBERS_HASH),
                u32(b, HELLO_CHUNK_BYTES),
                u32(b, HELLO_SMALL_BYTES),
                u32(b, HELLO_TIMEOUT_MS),
                u32(b, HELLO_REFUSED));
    }

    /**
     * Why {@code other}, a peer's HELLO, does not agree with this one (this rank's): null when it
     * agrees; else {@link Reason#PEER_REFUSED} when the peer refuses, {@link Reason#KNOBS} when only
     * the knobs differ, {@link Reason#BAD_MEMBERS} for the rest (team id, size, hash, or a rank
     * other than the one it was received from, {@code expectedRank}).
     */
    public Reason disagreement(Hello other, long expectedRank) {
        if (other.refused != 0) {
            return Reason.PEER_REFUSED;
        }
        if (other.teamId != teamId
                || other.size != size
                || other.membersHash != membersHash
                || other.rank != expectedRank) {
            return Reason.BAD_MEMBERS;
        }
        if (other.chunkBytes != chunkBytes || other.smallBytes != smallBytes || other.timeoutMs != timeoutMs) {
            return Reason.KNOBS;
        }
        return null;
    }

    private static long u32(ByteBuffer b, int offset) {
        return Integer.toUnsignedLong(b.getInt(offset));
    }
}
