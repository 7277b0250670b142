// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.PluginInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives plugins their ids: one bit each ({@code 1L << n}, so at most {@value #MAX_IDS} plugins),
 * unique, and stable for the registry's life.
 *
 * <ul>
 *   <li>A plugin keeps its id across scans while the same file is there (same path and {@link
 *       FileIdentity}).
 *   <li>A new plugin gets the lowest free bit; when none is free it is rejected.
 *   <li>The id of a plugin that disappeared (or whose file changed) is retired: it stays reserved
 *       while any {@link Lease} on it is open, and is freed when its last lease closes, or, with
 *       no lease, at the next scan after the one that retired it (so a host that has just read
 *       the plugin list cannot have the id given to another plugin before its worker leases it).
 * </ul>
 *
 * <p>Thread-safe: every method locks the registry.
 */
public final class PluginIdRegistry {
    /** The number of ids: the bits of a 64-bit mask. */
    public static final int MAX_IDS = Long.SIZE;

    private final Map<FileIdentity, Integer> assigned = new HashMap<>();
    private final int[] leaseCounts = new int[MAX_IDS];
    private long assignedMask;
    private long retiredMask;

    /** Ids for the plugins of one scan, and the plugins that got none. Immutable. */
    public record Assignment(List<DiscoveredPlugin> plugins, List<Rejection> rejected) {
        public Assignment {
            plugins = List.copyOf(plugins);
            rejected = List.copyOf(rejected);
        }
    }

    /**
     * Gives ids to the plugins of a scan (in its order) and retires the ids of plugins that are no
     * longer in it.
     */
    public synchronized Assignment assign(List<ScannedPlugin> scanned) {
        requireNonNull(scanned, "scanned is null");
        freeUnleasedRetired();
        Map<FileIdentity, Integer> kept = new HashMap<>();
        for (ScannedPlugin plugin : scanned) {
            Integer bit = assigned.get(plugin.identity());
            if (bit != null) {
                kept.put(plugin.identity(), bit);
            }
        }
        for (Map.Entry<FileIdentity, Integer> entry : assigned.entrySet()) {
            if (!kept.containsKey(entry.getKey())) {
                long bit = 1L << entry.getValue();
                assignedMask &= ~bit;
                retiredMask |= bit;
            }
        }
        assigned.keySet().retainAll(kept.keySet());

        List<DiscoveredPlugin> plugins = new ArrayList<>();
        List<Rejection> rejected = new ArrayList<>();
        for (ScannedPlugin plugin : scanned) {
            Integer bit = assigned.get(plugin.identity());
            if (bit == null) {
                long free = ~(assignedMask | retiredMask);
                if (free == 0) {
                    rejected.add(new Rejection(
                            plugin.path(), plugin.path() + ": no free plugin id (all " + MAX_IDS + " ids are in use)"));
                    continue;
                }
                bit = Long.numberOfTrailingZeros(free);
                assigned.put(plugin.identity(), bit);
                assignedMask |= 1L << bit;
            }
            PluginInfo info = new PluginInfo(1L << bit, plugin.version(), plugin.name());
            plugins.add(new DiscoveredPlugin(info, plugin.kind(), plugin.path()));
        }
        return new Assignment(plugins, rejected);
    }

    /**
     * Holds the ids of {@code idMask} (a worker that loaded those plugins) until the lease is
     * closed: a held id is never given to another plugin.
     *
     * @throws IllegalArgumentException naming the ids that are neither assigned nor retired
     */
    public synchronized Lease lease(long idMask) {
        long unknown = idMask & ~(assignedMask | retiredMask);
        if (unknown != 0) {
            throw new IllegalArgumentException("plugin ids 0x" + Long.toHexString(unknown) + " are not assigned");
        }
        for (long rest = idMask; rest != 0; rest &= rest - 1) {
            leaseCounts[Long.numberOfTrailingZeros(rest)]++;
        }
        return new Lease(idMask);
    }

    /** The ids of the plugins of the last scan. */
    public synchronized long assignedMask() {
        return assignedMask;
    }

    /** Ids of plugins that are gone but not yet free. */
    public synchronized long retiredMask() {
        return retiredMask;
    }

    /** How many open leases hold {@code id} (a single bit). */
    public synchronized int leaseCount(long id) {
        if (Long.bitCount(id) != 1) {
            throw new IllegalArgumentException("plugin id 0x" + Long.toHexString(id) + " is not a single bit");
        }
        return leaseCounts[Long.numberOfTrailingZeros(id)];
    }

    private void freeUnleasedRetired() {
        for (long rest = retiredMask; rest != 0; rest &= rest - 1) {
            int bit = Long.numberOfTrailingZeros(rest);
            if (leaseCounts[bit] == 0) {
                retiredMask &= ~(1L << bit);
            }
        }
    }

    private synchronized void release(long idMask) {
        for (long rest = idMask; rest != 0; rest &= rest - 1) {
            int bit = Long.numberOfTrailingZeros(rest);
            leaseCounts[bit]--;
            if (leaseCounts[bit] == 0) {
                retiredMask &= ~(1L << bit);
            }
        }
    }

    /**
     * Holds a set of ids until closed. Closing is idempotent and thread-safe.
     */
    public final class Lease implements AutoCloseable {
        private final long idMask;
        private boolean closed;

        private Lease(long idMask) {
            this.idMask = idMask;
        }

        public long idMask() {
            return idMask;
        }

        @Override
        public void close() {
            synchronized (PluginIdRegistry.this) {
                if (closed) {
                    return;
                }
                closed = true;
                release(idMask);
            }
        }
    }
}
