// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The command and notification bytes of docs/sandbox-protocol.md, written out independently of
 * the plugin under test so that the native tests check the plugin against the document.
 */
final class SandboxNativeCodec {
    static final long MEM_MAP = 0;
    static final long TAG_SEND = 1;
    static final long TAG_RECV = 2;
    static final long BOUNCE = 3;
    static final int BOUNCE_BYTES = 56;
    static final long INITIATOR = 0;
    static final long RESPONDER = 1;
    static final int TAG_SEND_FIXED_BYTES = 56;

    private SandboxNativeCodec() {}

    static byte[] memMap(long context, long length, String path) {
        byte[] p = path.getBytes(StandardCharsets.UTF_8);
        return le(32 + p.length)
                .putLong(MEM_MAP)
                .putLong(context)
                .putLong(length)
                .putLong(p.length)
                .put(p)
                .array();
    }

    static byte[] tagSendInline(long context, long dest, long tag, byte[] data) {
        return le(TAG_SEND_FIXED_BYTES + data.length)
                .putLong(TAG_SEND)
                .putLong(context)
                .putLong(dest)
                .putLong(0)
                .putLong(data.length)
                .putLong(tag)
                .putLong(0)
                .put(data)
                .array();
    }

    static byte[] tagSendRegion(long context, long dest, long offset, long count, long tag, long memhId) {
        return le(TAG_SEND_FIXED_BYTES)
                .putLong(TAG_SEND)
                .putLong(context)
                .putLong(dest)
                .putLong(offset)
                .putLong(count)
                .putLong(tag)
                .putLong(memhId)
                .array();
    }

    static byte[] tagRecv(long context, long offset, long count, long tag, long mask, long memhId) {
        return le(56).putLong(TAG_RECV)
                .putLong(context)
                .putLong(offset)
                .putLong(count)
                .putLong(tag)
                .putLong(mask)
                .putLong(memhId)
                .array();
    }

    static byte[] bounce(long context, long dest, long count, long tag, long iterations, long role) {
        return le(BOUNCE_BYTES)
                .putLong(BOUNCE)
                .putLong(context)
                .putLong(dest)
                .putLong(count)
                .putLong(tag)
                .putLong(iterations)
                .putLong(role)
                .array();
    }

    record Bounced(long elapsedNs, long iterations, UromStatus status) {}

    /** BOUNCE's answer, after checking type, context, length, the reserved field and the header's status. */
    static Bounced bounced(WorkerNotification n, long context) {
        ByteBuffer p = payload(n, 40);
        assertThat(p.getLong()).as("type").isEqualTo(BOUNCE);
        assertThat(p.getLong()).as("context").isEqualTo(context);
        Bounced b = new Bounced(p.getLong(), p.getLong(), UromStatus.fromCode(p.getInt()));
        assertThat(p.getInt()).as("reserved").isZero();
        assertThat(n.status()).as("header status").isEqualTo(b.status());
        return b;
    }

    /** MEM_MAP's answer: the memh_id, after checking type and context. */
    static long memhId(WorkerNotification n, long context) {
        assertThat(n.status()).as("MEM_MAP status").isEqualTo(UromStatus.SUCCESS);
        ByteBuffer p = payload(n, 24);
        assertThat(p.getLong()).as("type").isEqualTo(MEM_MAP);
        assertThat(p.getLong()).as("context").isEqualTo(context);
        return p.getLong();
    }

    /** TAG_SEND's answer: its status, after checking type, context and length. */
    static UromStatus sendStatus(WorkerNotification n, long context) {
        ByteBuffer p = payload(n, 24);
        assertThat(p.getLong()).as("type").isEqualTo(TAG_SEND);
        assertThat(p.getLong()).as("context").isEqualTo(context);
        UromStatus status = UromStatus.fromCode(p.getInt());
        assertThat(p.getInt()).as("reserved").isZero();
        assertThat(n.status()).as("header status").isEqualTo(status);
        return status;
    }

    record Received(long context, long buffer, long count, long senderTag, UromStatus status, byte[] data) {}

    /** TAG_RECV's answer, with the inline data that follows the fixed fields. */
    static Received received(WorkerNotification n) {
        ByteBuffer p = ByteBuffer.wrap(n.payload()).order(ByteOrder.LITTLE_ENDIAN);
        assertThat(n.payload().length).as("TAG_RECV notification length").isGreaterThanOrEqualTo(48);
        assertThat(p.getLong()).as("type").isEqualTo(TAG_RECV);
        Received r = new Received(
                p.getLong(),
                p.getLong(),
                p.getLong(),
                p.getLong(),
                UromStatus.fromCode(p.getInt()),
                Arrays.copyOfRange(n.payload(), 48, n.payload().length));
        assertThat(p.getInt()).as("reserved").isZero();
        assertThat(n.status()).as("header status").isEqualTo(r.status());
        return r;
    }

    private static ByteBuffer payload(WorkerNotification n, int length) {
        assertThat(n.payload()).as("notification payload").hasSize(length);
        return ByteBuffer.wrap(n.payload()).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
