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

    /**
     * Which process sent the commands of host connection {@code destId} (a command's {@link
     * WorkerCommand#destId()}), as the kernel named the peer of that connection's Unix socket when
     * it connected, never as the host says: for cross-memory attach into the host's buffers
     * ({@code urom_worker_host_process} in C).
     *
     * <p>Each call answers a new pidfd, which the caller owns and must close, whatever happens to
     * the connection afterwards. May be called from any thread.
     *
     * @throws UromException NOT_FOUND: the worker has no open connection with that id;
     *     NOT_SUPPORTED: the connection has no local process (TCP), the worker could not learn it,
     *     or this worker does not tell (the default); NO_MEMORY or OPERATING_SYSTEM: no descriptor
     *     could be made
     */
    @Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
    default HostProcess hostProcess(long destId) throws UromException {
        throw new UromException(
                UromStatus.NOT_SUPPORTED, "this worker does not tell the host processes of its connections");
    }
}
