package dev.urom.spi;

import java.util.List;

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
}
