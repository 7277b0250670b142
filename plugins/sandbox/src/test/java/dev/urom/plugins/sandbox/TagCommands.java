// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;

/**
 * Builders of the sandbox's tag commands for tests, so that a test names each field it sets
 * instead of passing a run of numbers. Every field not named is 0 (no data, our fixed part);
 * builders are mutable and not thread-safe; {@code build()} throws what the record's constructor
 * throws.
 */
final class TagCommands {
    private TagCommands() {}

    /** A TAG_SEND with command context {@code context}. */
    static Send tagSend(long context) {
        return new Send(context);
    }

    /** A TAG_RECV with command context {@code context}. */
    static Receive tagRecv(long context) {
        return new Receive(context);
    }

    /** TAG_SEND's fields by name. */
    static final class Send {
        private final long context;
        private long dest;
        private long buffer;
        private long count;
        private long tag;
        private long region;
        private byte[] data = new byte[0];
        private int fixedBytes = SandboxCommand.TAG_FIXED_BYTES;

        private Send(long context) {
            this.context = context;
        }

        /** The receiving peer's domain id. */
        Send to(long domainId) {
            dest = domainId;
            return this;
        }

        Send tag(long value) {
            tag = value;
            return this;
        }

        /** The data sent inline, and its length as the count. */
        Send inline(byte[] bytes) {
            data = bytes;
            count = bytes.length;
            return this;
        }

        Send count(long bytes) {
            count = bytes;
            return this;
        }

        /** The data's offset in the mapped region (or, inline, the unused buffer field). */
        Send buffer(long offset) {
            buffer = offset;
            return this;
        }

        /** The mapped region the data is read from (its MEM_MAP handle). */
        Send region(long memhId) {
            region = memhId;
            return this;
        }

        /** The size of the fixed part: ours, or one of DOCA's. */
        Send fixedBytes(int bytes) {
            fixedBytes = bytes;
            return this;
        }

        TagSend build() {
            return new TagSend(context, dest, buffer, count, tag, region, data, fixedBytes);
        }
    }

    /** TAG_RECV's fields by name. */
    static final class Receive {
        private final long context;
        private long buffer;
        private long count;
        private long tag;
        private long mask;
        private long region;
        private int fixedBytes = SandboxCommand.TAG_FIXED_BYTES;

        private Receive(long context) {
            this.context = context;
        }

        /** The tag matched under {@code tagMask}. */
        Receive tag(long value, long tagMask) {
            tag = value;
            mask = tagMask;
            return this;
        }

        /** The most bytes received. */
        Receive count(long bytes) {
            count = bytes;
            return this;
        }

        /** Where the data goes in the mapped region (or, inline, the unused buffer field). */
        Receive buffer(long offset) {
            buffer = offset;
            return this;
        }

        /** The mapped region the data is written to (its MEM_MAP handle). */
        Receive region(long memhId) {
            region = memhId;
            return this;
        }

        /** The size of the fixed part: ours, or one of DOCA's. */
        Receive fixedBytes(int bytes) {
            fixedBytes = bytes;
            return this;
        }

        TagRecv build() {
            return new TagRecv(context, buffer, count, tag, mask, region, fixedBytes);
        }
    }
}
