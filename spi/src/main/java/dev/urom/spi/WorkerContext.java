// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

/**
 * What a worker hands a plugin when it opens it: {@code struct urom_worker_ctx} less the parts
 * that a Java object keeps for itself (the interface table and {@code plugin_ctx}).
 *
 * <p>Valid from {@link PluginIface#open} until {@link PluginIface#close}; used from the thread that
 * drives the plugin.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public interface WorkerContext {
    /** The id of the worker that loaded the plugin. */
    long workerId();

    /** The id the service gave the plugin: the {@code type} of every command addressed to it. */
    long pluginId();

    /** Peer look-ups of the worker's domain. */
    DomainLookups domain();
}
