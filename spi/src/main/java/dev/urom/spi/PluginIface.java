// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A worker plugin: {@code struct urom_plugin_iface} in Java form, with its six operations in the
 * order of the C table. A native plugin ({@code .so}) and a Java plugin (a PF4J jar whose {@code
 * Plugin-Class} implements this interface) are driven through it alike, so nothing above it can
 * tell which language a plugin is written in.
 *
 * <h2>Threading</h2>
 * A worker drives each plugin from one thread: it never calls two methods of the same plugin at
 * once, and calls them all from the same thread between {@link #open} and {@link #close}. An
 * implementation therefore needs no locking for its own state, but must not block: {@link
 * #workerCommand} accepts work and {@link #progress} reports what has completed.
 *
 * <h2>Failures</h2>
 * A method that fails throws {@link UromException} with the status the C entry point would return.
 * The worker turns a failed command into a notification with that status; any other exception
 * becomes {@link UromStatus#UNEXPECTED}. Neither stops the worker.
 *
 * <h2>Java plugins</h2>
 * The implementing class is named by {@code Plugin-Class} in the jar's PF4J descriptor, is public
 * and has a public no-argument constructor; {@code Plugin-Version} is the plugin's version, an
 * unsigned decimal number (what {@code urom_plugin_get_version} answers for a native plugin). Each
 * Java plugin gets its own class loader, and the {@code dev.urom.spi} package always comes from the
 * worker's.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public interface PluginIface {
    /**
     * Opens the plugin for a worker and acquires its resources ({@code open}).
     *
     * @param context valid until {@link #close}
     */
    void open(WorkerContext context) throws UromException;

    /** Releases everything {@link #open} acquired ({@code close}). Never called twice. */
    void close();

    /**
     * The plugin's address, which peers in a domain use to reach it ({@code addr}). The C
     * two-call protocol is the bridge's business: here the whole address is returned.
     */
    byte[] address() throws UromException;

    /**
     * Accepts one command ({@code worker_cmd}). Its answer, if any, is returned later by {@link
     * #progress} as a notification with the command's {@code destId}, {@code type} and {@code
     * uromContext}.
     *
     * @throws UromException when the command is refused; the worker answers it with that status
     */
    void workerCommand(WorkerCommand command) throws UromException;

    /**
     * Makes progress and appends the notifications of completed commands to {@code
     * notifications}, oldest first ({@code progress}); appending nothing is the C {@code EMPTY}.
     */
    void progress(List<? super WorkerNotification> notifications) throws UromException;

    /**
     * Packs a notification for the wire ({@code notif_pack}): the {@code struct urom_worker_notify}
     * header followed by the plugin's notification bytes. The default is {@link
     * WorkerNotification#pack()}, right for a plugin whose notification bytes hold no pointers.
     */
    default byte[] packNotification(WorkerNotification notification) throws UromException {
        return notification.pack();
    }

    /**
     * The transport the plugin's address belongs to ({@code urom_plugin_get_transport}): an ASCII
     * name of 1 to 64 characters from {@code [A-Za-z0-9._:/-]}. A domain look-up may hand this
     * plugin an address that another plugin published when both name the same transport. The
     * default names none: look-ups return only addresses of this plugin's own id.
     */
    default Optional<String> transport() {
        return Optional.empty();
    }

    /**
     * After {@link #open}, a file descriptor that becomes readable when {@link #progress} has work
     * ({@code urom_plugin_get_wakeup_fd}); the worker neither reads nor closes it. The default has
     * none: the worker polls the plugin while its commands are in flight.
     */
    default OptionalInt wakeupFd() {
        return OptionalInt.empty();
    }

    /**
     * Called before the worker sleeps on {@link #wakeupFd()} ({@code urom_plugin_arm_wakeup}).
     *
     * @return true when armed (nothing pending: the worker may sleep until the descriptor is
     *     readable), false when work is pending and the worker must call {@link #progress} again
     */
    default boolean armWakeup() throws UromException {
        return false;
    }
}
