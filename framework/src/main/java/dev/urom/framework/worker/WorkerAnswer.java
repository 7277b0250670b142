// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * One notification that a {@link WorkerHost} hands out, with who made it and, for a refused
 * command, why. Immutable and thread-safe; the constructor throws {@link NullPointerException} for
 * a null component and {@link IllegalArgumentException} for a combination that no host makes:
 * <ul>
 *   <li>an answer the worker made ({@link #madeByWorker()}) with a payload or a SUCCESS status;
 *   <li>a reason on anything but a {@link Origin#PLUGIN_REFUSAL};
 *   <li>a reason that is empty or longer than {@value #MAX_REASON_BYTES} UTF-8 bytes.
 * </ul>
 *
 * @param notification what goes to the host, as the plugin or the worker made it
 * @param origin who made it, and for what
 * @param refusalReason for a plugin's refusal, the message it refused with: a Java plugin's
 *     exception message, the last error a native plugin logged while refusing (else {@code
 *     worker_cmd returned STATUS}); one line, cut to what a notification of the worker's maximum
 *     message size holds. Empty for everything else.
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public record WorkerAnswer(WorkerNotification notification, Origin origin, Optional<String> refusalReason) {
    /** The most UTF-8 bytes a refusal's reason holds. */
    public static final int MAX_REASON_BYTES = 512;

    /** Who made an answer, and for what. */
    public enum Origin {
        /** The plugin, in its {@code progress}: a host gets it as the plugin's {@code packNotification} packs it. */
        PLUGIN,
        /**
         * The worker, for a command the plugin refused: its {@code worker_cmd} returned an error, or
         * a Java plugin threw. The status is the plugin's (UNEXPECTED for a throw that is not a
         * {@link dev.urom.spi.UromException}).
         */
        PLUGIN_REFUSAL,
        /**
         * The worker, for a command that reached no plugin: an unknown plugin id (NOT_FOUND), a
         * command over the maximum message size (TOO_BIG), a plugin that failed to load or open (its
         * failure status), or no answer within a {@link WorkerHost#call} time limit (TIME_OUT).
         */
        WORKER
    }

    public WorkerAnswer {
        requireNonNull(notification, "notification is null");
        requireNonNull(origin, "origin is null");
        requireNonNull(refusalReason, "refusalReason is null");
        if (origin != Origin.PLUGIN
                && (notification.payload().length > 0 || notification.status().isSuccess())) {
            throw new IllegalArgumentException(
                    "the worker's answer must be a failure without payload, not " + notification);
        }
        if (refusalReason.isPresent()) {
            if (origin != Origin.PLUGIN_REFUSAL) {
                throw new IllegalArgumentException(
                        "only a plugin's refusal has a reason, not an answer of origin " + origin);
            }
            int bytes = refusalReason.get().getBytes(StandardCharsets.UTF_8).length;
            if (bytes == 0 || bytes > MAX_REASON_BYTES) {
                throw new IllegalArgumentException(
                        "a refusal's reason has 1 to " + MAX_REASON_BYTES + " UTF-8 bytes, not " + bytes);
            }
        }
    }

    /** A notification that a plugin made. */
    public static WorkerAnswer fromPlugin(WorkerNotification notification) {
        return new WorkerAnswer(notification, Origin.PLUGIN, Optional.empty());
    }

    /** The worker's answer to {@code command}, which its plugin refused with {@code status} for {@code reason} (empty: none known). */
    public static WorkerAnswer pluginRefusal(WorkerCommand command, UromStatus status, Optional<String> reason) {
        return new WorkerAnswer(failure(command, status), Origin.PLUGIN_REFUSAL, reason);
    }

    /** The worker's own answer to {@code command}, which reached no plugin. */
    public static WorkerAnswer workerRefusal(WorkerCommand command, UromStatus status) {
        return new WorkerAnswer(failure(command, status), Origin.WORKER, Optional.empty());
    }

    private static WorkerNotification failure(WorkerCommand command, UromStatus status) {
        return WorkerNotification.failure(
                requireNonNull(command, "command is null"), requireNonNull(status, "status is null"));
    }

    /**
     * Whether the worker made this answer rather than the plugin's {@code progress}: the worker
     * packs it ({@link WorkerNotification#pack()}), never the plugin's {@code packNotification} (a
     * DOCA plugin's {@code notif_pack} may pack a fixed size whatever {@code len} says).
     */
    public boolean madeByWorker() {
        return origin != Origin.PLUGIN;
    }

    /** The notification's {@code destId}: the host connection it goes to. */
    public long destId() {
        return notification.destId();
    }

    /** The notification's {@code type}: the plugin id. */
    public long type() {
        return notification.type();
    }

    /** The notification's {@code uromContext}. */
    public long uromContext() {
        return notification.uromContext();
    }

    /** The notification's status. */
    public UromStatus status() {
        return notification.status();
    }

    /** The notification's payload (the notification's own array). */
    public byte[] payload() {
        return notification.payload();
    }
}
