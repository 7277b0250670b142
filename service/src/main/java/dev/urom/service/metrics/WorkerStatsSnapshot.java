// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * A worker's counts at one moment, as it reports them to its daemon, or the sum over several
 * workers. Every count is cumulative from the worker's start, except {@code connectionsOpen}.
 * {@code sequence} orders the snapshots of one worker (a later one has a higher number). Immutable.
 *
 * @param plugins counts by plugin name; "unknown" holds commands for plugin ids the worker does not run
 * @throws IllegalArgumentException from the constructor when a count is negative
 */
public record WorkerStatsSnapshot(
        long sequence,
        long connectionsAccepted,
        long connectionsOpen,
        long connectionsRefused,
        Map<String, PluginCounts> plugins) {
    public static final WorkerStatsSnapshot EMPTY = new WorkerStatsSnapshot(0, 0, 0, 0, Map.of());

    public WorkerStatsSnapshot {
        requireNonNull(plugins, "plugins is null");
        PluginCounts.requireNotNegative("sequence", sequence);
        PluginCounts.requireNotNegative("connectionsAccepted", connectionsAccepted);
        PluginCounts.requireNotNegative("connectionsOpen", connectionsOpen);
        PluginCounts.requireNotNegative("connectionsRefused", connectionsRefused);
        plugins.forEach((name, counts) -> requireNonNull(counts, "the counts of plugin " + name + " are null"));
        plugins = Map.copyOf(plugins);
    }

    /** The commands this snapshot's plugins received, all added (at most {@link Long#MAX_VALUE}). */
    public long commands() {
        long commands = 0;
        for (PluginCounts counts : plugins.values()) {
            commands = PluginCounts.add(commands, counts.commands());
        }
        return commands;
    }

    /** The same counts with no connection open: what is left of a worker that has ended. */
    public WorkerStatsSnapshot ended() {
        return new WorkerStatsSnapshot(sequence, connectionsAccepted, 0, connectionsRefused, plugins);
    }

    /** The sum of {@code snapshots} (sequence 0). */
    public static WorkerStatsSnapshot sum(Collection<WorkerStatsSnapshot> snapshots) {
        long accepted = 0;
        long open = 0;
        long refused = 0;
        Map<String, PluginCounts> plugins = new TreeMap<>();
        for (WorkerStatsSnapshot s : snapshots) {
            accepted = PluginCounts.add(accepted, s.connectionsAccepted);
            open = PluginCounts.add(open, s.connectionsOpen);
            refused = PluginCounts.add(refused, s.connectionsRefused);
            s.plugins.forEach((name, counts) -> plugins.merge(name, counts, PluginCounts::plus));
        }
        return new WorkerStatsSnapshot(0, accepted, open, refused, plugins);
    }
}
