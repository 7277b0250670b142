// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The tests' own encoding of urom_coll.h (commands out, answers in), written from the header so
 * that the plugin is held to its bytes; the numbers are the header's.
 */
final class Coll {
    static final int TEAM_CREATE = 1;
    static final int TEAM_DESTROY = 2;
    static final int MEM_MAP = 3;
    static final int MEM_UNMAP = 4;
    static final int POST = 5;

    static final int BARRIER = 0;
    static final int BCAST = 1;
    static final int REDUCE = 2;
    static final int ALLREDUCE = 3;
    static final int ALLGATHER = 4;
    static final int ALLTOALL = 5;

    static final int INT8 = 0;
    static final int INT32 = 2;
    static final int INT64 = 3;
    static final int UINT8 = 4;
    static final int UINT16 = 5;
    static final int UINT32 = 6;
    static final int FLOAT32 = 8;
    static final int FLOAT64 = 9;

    static final int SUM = 0;
    static final int PROD = 1;
    static final int MIN = 2;
    static final int MAX = 3;
    static final int BAND = 4;
    static final int BXOR = 6;

    static final int IN_PLACE = 1;
    static final int READ = 1;
    static final int WRITE = 2;

    // reasons
    static final int BAD_COMMAND = 1;
    static final int UNKNOWN_COLL = 2;
    static final int UNKNOWN_DTYPE = 3;
    static final int UNKNOWN_OP = 4;
    static final int OP_NOT_FOR_DTYPE = 5;
    static final int COUNT_OVERFLOW = 6;
    static final int BAD_ROOT = 7;
    static final int BAD_FLAGS = 8;
    static final int NOT_MAPPED = 9;
    static final int NOT_READABLE = 10;
    static final int NOT_WRITABLE = 11;
    static final int OVERLAP = 12;
    static final int BAD_MEMH = 13;
    static final int TEAM_UNKNOWN = 14;
    static final int TEAM_EXISTS = 15;
    static final int BAD_MEMBERS = 16;
    static final int TEAM_FAILED = 17;
    static final int NO_DOMAIN = 18;
    static final int HOST_UNREACHABLE = 19;
    static final int MISMATCH = 20;
    static final int PEER_REFUSED = 21;
    static final int PEER_FAILED = 22;
    static final int TIMEOUT = 23;
    static final int HOST_GONE = 24;
    static final int TOO_MANY = 25;
    static final int TEAM_DESTROYED = 26;
    static final int KNOBS = 27;

    private Coll() {}

    static int dtypeSize(int dtype) {
        return new int[] {1, 2, 4, 8, 1, 2, 4, 8, 4, 8}[dtype];
    }

    private static ByteBuffer command(int type, long cookie, int length) {
        ByteBuffer b = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) type).putShort((short) 1).putInt(0).putLong(cookie);
        return b;
    }

    /** Team knobs: 0 for defaults. */
    record Knobs(int chunkBytes, int smallBytes, int timeoutMs) {
        static final Knobs DEFAULT = new Knobs(0, 0, 0);
    }

    static byte[] teamRange(long cookie, int teamId, int size, int rank, long start, long stride, Knobs knobs) {
        ByteBuffer b = command(TEAM_CREATE, cookie, 64);
        b.putInt(teamId).putInt(size).putInt(rank).putInt(0).putLong(start).putLong(stride);
        b.putInt(knobs.chunkBytes()).putInt(knobs.smallBytes()).putInt(knobs.timeoutMs()).putInt(0);
        return b.array();
    }

    static byte[] teamList(long cookie, int teamId, int rank, long[] ids, Knobs knobs) {
        ByteBuffer b = command(TEAM_CREATE, cookie, 64 + 8 * ids.length);
        b.putInt(teamId).putInt(ids.length).putInt(rank).putInt(1).putLong(0).putLong(0);
        b.putInt(knobs.chunkBytes()).putInt(knobs.smallBytes()).putInt(knobs.timeoutMs()).putInt(0);
        for (long id : ids) {
            b.putLong(id);
        }
        return b.array();
    }

    static byte[] teamDestroy(long cookie, int teamId) {
        return command(TEAM_DESTROY, cookie, 24).putInt(teamId).putInt(0).array();
    }

    static byte[] memMap(long cookie, long address, long length, int access) {
        return command(MEM_MAP, cookie, 40).putLong(address).putLong(length).putInt(access).putInt(0).array();
    }

    static byte[] memUnmap(long cookie, long memh) {
        return command(MEM_UNMAP, cookie, 24).putLong(memh).array();
    }

    /** A POST's arguments. */
    record Post(int teamId, int coll, int dtype, int op, int root, int flags, long count, long src, long dst, long srcMemh,
            long dstMemh) {
        static Post of(int teamId, int coll, int dtype, int op, long count, long src, long dst) {
            return new Post(teamId, coll, dtype, op, 0, 0, count, src, dst, 0, 0);
        }

        Post root(int value) {
            return new Post(teamId, coll, dtype, op, value, flags, count, src, dst, srcMemh, dstMemh);
        }

        Post flags(int value) {
            return new Post(teamId, coll, dtype, op, root, value, count, src, dst, srcMemh, dstMemh);
        }

        Post count(long value) {
            return new Post(teamId, coll, dtype, op, root, flags, value, src, dst, srcMemh, dstMemh);
        }

        Post memh(long srcHandle, long dstHandle) {
            return new Post(teamId, coll, dtype, op, root, flags, count, src, dst, srcHandle, dstHandle);
        }

        byte[] encode(long cookie) {
            ByteBuffer b = command(POST, cookie, 72);
            b.putInt(teamId).putShort((short) coll).put((byte) dtype).put((byte) op).putInt(root).putInt(flags);
            b.putLong(count).putLong(src).putLong(dst).putLong(srcMemh).putLong(dstMemh);
            return b.array();
        }
    }

    /** An answer: its header and body. */
    record Answer(int type, int version, int status, long cookie, int reason, int detail, ByteBuffer body) {
        static Answer of(WorkerNotification n) {
            assertThat(n.status()).as("the framework's status of %s", n).isEqualTo(UromStatus.SUCCESS);
            ByteBuffer b = ByteBuffer.wrap(n.payload()).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(n.payload().length).as("answer length").isGreaterThanOrEqualTo(24);
            int type = Short.toUnsignedInt(b.getShort());
            int version = Short.toUnsignedInt(b.getShort());
            int status = b.getInt();
            long cookie = b.getLong();
            int reason = b.getInt();
            int detail = b.getInt();
            return new Answer(type, version, status, cookie, reason, detail, b.slice().order(ByteOrder.LITTLE_ENDIAN));
        }

        UromStatus uromStatus() {
            return UromStatus.fromCode(status);
        }

        long memh() {
            return body.getLong(0);
        }

        long sequence() {
            return body.getLong(8);
        }

        int teamId() {
            return body.getInt(0);
        }

        Answer isOk() {
            assertThat(reason).as("reason of %s", this).isZero();
            assertThat(uromStatus()).as("status of %s", this).isEqualTo(UromStatus.SUCCESS);
            return this;
        }

        Answer fails(UromStatus expectedStatus, int expectedReason) {
            assertThat(reason).as("reason of %s", this).isEqualTo(expectedReason);
            assertThat(uromStatus()).as("status of %s", this).isEqualTo(expectedStatus);
            return this;
        }

        Answer detail(int expected) {
            assertThat(detail).as("detail of %s", this).isEqualTo(expected);
            return this;
        }

        @Override
        public String toString() {
            return "answer(type " + type + ", status " + status + ", reason " + reason + ", detail " + detail + ", cookie " + cookie
                    + ")";
        }
    }
}
