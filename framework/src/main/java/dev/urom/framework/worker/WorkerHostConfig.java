// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.WorkerCommand;
import java.util.Optional;
import java.util.function.LongFunction;

/**
 * Settings of a {@link WorkerHost}. Immutable; safe to share between threads.
 *
 * @param maxMessageSize the largest command accepted, header included ({@link
 *     WorkerCommand#sizeWithHeader()}); a larger one is answered with {@code TOO_BIG}
 * @param domains the peer look-ups of each plugin, by plugin id and the transport it names: called
 *     once per plugin when it is opened; what it answers is handed to that plugin in its {@code
 *     WorkerContext} and must never be null (a live view is what lets a domain set up after the
 *     plugins opened reach them)
 * @param hostProcesses the processes of the worker's host connections, which every plugin's {@code
 *     WorkerContext.hostProcess} asks ({@link HostProcesses#none()} unless the embedder knows them)
 */
public record WorkerHostConfig(int maxMessageSize, PluginDomains domains, HostProcesses hostProcesses) {
    /** The look-ups of each plugin. */
    @FunctionalInterface
    public interface PluginDomains {
        /**
         * The look-ups for the plugin with {@code pluginId} that names {@code transport} ({@link
         * dev.urom.spi.PluginIface#transport()}, checked; empty: none).
         */
        DomainLookups lookupsFor(long pluginId, Optional<String> transport);
    }

    /** The service's default maximum message size, header included. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 4096;

    public WorkerHostConfig {
        requireNonNull(domains, "domains is null");
        requireNonNull(hostProcesses, "hostProcesses is null");
        if (maxMessageSize < WorkerCommand.HEADER_BYTES) {
            throw new IllegalArgumentException("max message size " + maxMessageSize
                    + " bytes is smaller than a command header (" + WorkerCommand.HEADER_BYTES + " bytes)");
        }
    }

    /** No host processes. */
    public WorkerHostConfig(int maxMessageSize, PluginDomains domains) {
        this(maxMessageSize, domains, HostProcesses.none());
    }

    /** {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes, no domain, no host processes. */
    public static WorkerHostConfig defaults() {
        return new WorkerHostConfig(DEFAULT_MAX_MESSAGE_SIZE, (id, transport) -> DomainLookups.none());
    }

    public WorkerHostConfig withMaxMessageSize(int bytes) {
        return new WorkerHostConfig(bytes, domains, hostProcesses);
    }

    /** The host processes that every plugin's context answers with. */
    public WorkerHostConfig withHostProcesses(HostProcesses processes) {
        return new WorkerHostConfig(maxMessageSize, domains, requireNonNull(processes, "processes is null"));
    }

    /** The same look-ups for every plugin. */
    public WorkerHostConfig withDomain(DomainLookups lookups) {
        requireNonNull(lookups, "lookups is null");
        return new WorkerHostConfig(maxMessageSize, (id, transport) -> lookups, hostProcesses);
    }

    /** Each plugin's own look-ups, by plugin id, whatever transport it names. */
    public WorkerHostConfig withDomain(LongFunction<DomainLookups> byPluginId) {
        requireNonNull(byPluginId, "byPluginId is null");
        return new WorkerHostConfig(maxMessageSize, (id, transport) -> byPluginId.apply(id), hostProcesses);
    }

    /** Each plugin's own look-ups, by plugin id and transport (see the {@code domains} component). */
    public WorkerHostConfig withDomains(PluginDomains byPlugin) {
        return new WorkerHostConfig(maxMessageSize, byPlugin, hostProcesses);
    }

    /** The look-ups handed to the plugin with this id and transport. */
    DomainLookups domainFor(long pluginId, Optional<String> transport) {
        return requireNonNull(
                domains.lookupsFor(pluginId, transport), "the domain look-ups for plugin id " + pluginId + " are null");
    }
}
