// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.HostProcess;
import java.util.HashMap;
import java.util.Map;

/**
 * What the plugin keeps per host connection: the host's memory ({@link HostMemory}) and the
 * ranges it registered with MEM_MAP (at most {@value CollLayout#MEMH_MAX}, handles 1, 2, ...).
 * Not thread-safe: the plugin's thread. Owns the host's pidfd, closed by {@link #dispose}.
 */
final class Connection {
    private record Range(long address, long length, long access) {}

    private final HostMemory memory;
    private final Map<Long, Range> handles = new HashMap<>();
    private long nextHandle = 1;

    Connection(HostProcess host) {
        this.memory = new HostMemory(host);
    }

    HostMemory memory() {
        return memory;
    }

    /** Registers a range: its handle, or the negated code of the reason it is refused. */
    long map(long address, long length, long access) {
        if (access == 0 || (access & ~(long) (CollLayout.ACCESS_READ | CollLayout.ACCESS_WRITE)) != 0) {
            return -Reason.BAD_FLAGS.code();
        }
        if (length == 0) {
            return -Reason.BAD_COMMAND.code();
        }
        if (handles.size() >= CollLayout.MEMH_MAX) {
            return -Reason.TOO_MANY.code();
        }
        Reason reason = memory.check(
                address, length, (access & CollLayout.ACCESS_READ) != 0, (access & CollLayout.ACCESS_WRITE) != 0);
        if (reason != Reason.NONE) {
            return -reason.code();
        }
        long handle = nextHandle++;
        handles.put(handle, new Range(address, length, access));
        return handle;
    }

    boolean unmap(long handle) {
        return handles.remove(handle) != null;
    }

    /**
     * Checks a range of a collective: against its handle when {@code memh} is not 0 (BAD_MEMH:
     * unknown, outside, or lacking the access), else against the host's mappings.
     */
    Reason check(long memh, long address, long length, boolean write) {
        if (length == 0) {
            return Reason.NONE;
        }
        if (Long.compareUnsigned(address + length, address) < 0 && address + length != 0) {
            return Reason.NOT_MAPPED;
        }
        if (memh == 0) {
            return memory.check(address, length, !write, write);
        }
        Range range = handles.get(memh);
        long need = write ? CollLayout.ACCESS_WRITE : CollLayout.ACCESS_READ;
        if (range == null || (range.access & need) == 0) {
            return Reason.BAD_MEMH;
        }
        long offset = address - range.address;
        if (Long.compareUnsigned(address, range.address) < 0
                || Long.compareUnsigned(offset, range.length) > 0
                || Long.compareUnsigned(length, range.length - offset) > 0) {
            return Reason.BAD_MEMH;
        }
        return Reason.NONE;
    }

    void dispose() {
        memory.dispose();
    }
}
