// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

/**
 * The 64-bit UCP tag of a worker-to-worker message ({@code urom_coll_tag}): bits 63..60 kind,
 * 59..48 team id, 47..32 sequence mod 2^16, 31..16 step, 15..0 the sender's rank; each value is
 * cut to its field's width. Stateless.
 */
public final class CollTag {
    private CollTag() {}

    public static long of(MessageKind kind, long teamId, long sequence, long step, long sender) {
        return of(kind.code(), teamId, sequence, step, sender);
    }

    public static long of(int kind, long teamId, long sequence, long step, long sender) {
        return ((kind & 0xfL) << 60)
                | ((teamId & 0xfffL) << 48)
                | ((sequence & 0xffffL) << 32)
                | ((step & 0xffffL) << 16)
                | (sender & 0xffffL);
    }

    public static int kind(long tag) {
        return (int) (tag >>> 60);
    }

    public static int teamId(long tag) {
        return (int) ((tag >>> 48) & 0xfff);
    }

    public static int sequence(long tag) {
        return (int) ((tag >>> 32) & 0xffff);
    }

    public static int step(long tag) {
        return (int) ((tag >>> 16) & 0xffff);
    }

    public static int sender(long tag) {
        return (int) (tag & 0xffff);
    }
}
