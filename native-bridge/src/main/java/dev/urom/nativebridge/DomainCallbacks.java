// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static java.util.Objects.requireNonNull;

import com.sun.jna.Callback;
import com.sun.jna.CallbackReference;
import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The four {@code urom_domain_lookups_iface} function pointers of one opened native plugin,
 * answered by a Java {@link DomainLookups}.
 *
 * <p>Ownership: the callbacks and every block of native memory handed to the plugin (through
 * {@code void **addr}, {@code memh}, {@code rkey}) are kept by this object, which the plugin keeps
 * for its whole life, so pointers the plugin holds stay valid. A block is replaced only when the
 * answer for the same key changes; the old block is retained too. Every block ends with one NUL byte
 * after the answer's bytes (not counted in a returned length), so a plugin can find the end of a
 * textual address, which {@code addr_lookup} hands over without a length.
 *
 * <p>Not thread-safe: called from the thread that drives the plugin. No Java exception reaches
 * native code: every failure becomes a status.
 */
final class DomainCallbacks {
    private static final Logger LOG = LogManager.getLogger(DomainCallbacks.class);

    interface AddrLookup extends Callback {
        int invoke(Pointer ctx, long domainId, Pointer addr);
    }

    interface SegLookup extends Callback {
        int invoke(Pointer ctx, long domainId, long va, Pointer seg);
    }

    interface BufferLookup extends Callback {
        int invoke(Pointer ctx, long domainId, int seg, Pointer len, Pointer out);
    }

    private interface BufferSource {
        byte[] get(long domainId, int seg) throws UromException;
    }

    private final DomainLookups domain;
    private final String pluginName;
    private final AddrLookup addrLookup = this::addrLookup;
    private final SegLookup segLookup = this::segLookup;
    private final BufferLookup memhLookup =
            (ctx, domainId, seg, len, out) -> bufferLookup("memh", domainId, seg, len, out, this::memoryHandle);
    private final BufferLookup mkeyLookup =
            (ctx, domainId, seg, len, out) -> bufferLookup("mkey", domainId, seg, len, out, this::memoryKey);
    private final Map<String, Memory> current = new HashMap<>();
    private final List<Memory> retired = new ArrayList<>();

    DomainCallbacks(DomainLookups domain, String pluginName) {
        this.domain = requireNonNull(domain, "domain is null");
        this.pluginName = requireNonNull(pluginName, "pluginName is null");
    }

    /** Writes the four function pointers into a {@code struct urom_worker_ctx}. */
    void writeInto(Pointer workerCtx) {
        workerCtx.setPointer(Abi.CTX_ADDR_LOOKUP, CallbackReference.getFunctionPointer(addrLookup));
        workerCtx.setPointer(Abi.CTX_SEG_LOOKUP, CallbackReference.getFunctionPointer(segLookup));
        workerCtx.setPointer(Abi.CTX_MEMH_LOOKUP, CallbackReference.getFunctionPointer(memhLookup));
        workerCtx.setPointer(Abi.CTX_MKEY_LOOKUP, CallbackReference.getFunctionPointer(mkeyLookup));
    }

    private byte[] memoryHandle(long domainId, int seg) throws UromException {
        return domain.memoryHandle(domainId, seg);
    }

    private byte[] memoryKey(long domainId, int seg) throws UromException {
        return domain.memoryKey(domainId, seg);
    }

    private int addrLookup(Pointer ctx, long domainId, Pointer addr) {
        if (addr == null) {
            return UromStatus.INVALID_VALUE.code();
        }
        try {
            byte[] bytes = requireNonNull(domain.address(domainId), "address() returned null");
            addr.setPointer(0, retain("addr/" + domainId, bytes));
            return UromStatus.SUCCESS.code();
        } catch (Throwable t) {
            return failure("addr_lookup", domainId, t);
        }
    }

    private int segLookup(Pointer ctx, long domainId, long va, Pointer seg) {
        if (seg == null) {
            return UromStatus.INVALID_VALUE.code();
        }
        try {
            seg.setInt(0, domain.segment(domainId, va));
            return UromStatus.SUCCESS.code();
        } catch (Throwable t) {
            return failure("seg_lookup", domainId, t);
        }
    }

    private int bufferLookup(String what, long domainId, int seg, Pointer len, Pointer out, BufferSource source) {
        if (len == null || out == null) {
            return UromStatus.INVALID_VALUE.code();
        }
        try {
            byte[] bytes = requireNonNull(source.get(domainId, seg), what + " look-up returned null");
            out.setPointer(0, retain(what + "/" + domainId + "/" + seg, bytes));
            len.setLong(0, bytes.length);
            return UromStatus.SUCCESS.code();
        } catch (Throwable t) {
            return failure(what + "_lookup", domainId, t);
        }
    }

    private Memory retain(String key, byte[] bytes) {
        Memory existing = current.get(key);
        if (existing != null
                && existing.size() == bytes.length + 1L
                && Arrays.equals(existing.getByteArray(0, bytes.length), bytes)) {
            return existing;
        }
        Memory block = new Memory(bytes.length + 1L);
        block.clear();
        block.write(0, bytes, 0, bytes.length);
        if (existing != null) {
            retired.add(existing);
        }
        current.put(key, block);
        return block;
    }

    private int failure(String lookup, long domainId, Throwable t) {
        if (t instanceof UromException e) {
            return e.status().code();
        }
        LOG.error("{}: {} for domain id {} failed: {}", pluginName, lookup, domainId, t.toString());
        return UromStatus.UNEXPECTED.code();
    }
}
