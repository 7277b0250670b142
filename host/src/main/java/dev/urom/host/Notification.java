// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.UromStatus;
import java.util.Arrays;

/**
 * The outcome of one submitted command.
 *
 * <p>Immutable by convention: the arrays are not copied and must not be changed. {@code equals}
 * compares array contents.
 *
 * @param status SUCCESS, the plugin's status, or a host-side condition (BAD_STATE, AGAIN, TOO_BIG,
 *     CONNECTION_RESET)
 * @param payload the plugin's notification bytes, headers stripped (empty for host-side conditions)
 * @param userData the bytes given to {@link Worker#submit(long, byte[], byte[])} (empty when none)
 * @param reason why the plugin refused the command, on one line, when it said (a Java plugin's
 *     exception message, the error a native plugin logged); for TOO_BIG, the command's size and the
 *     limit; empty otherwise. Diagnostic text for people, beside the plugin's bytes and never in them.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public record Notification(UromStatus status, byte[] payload, byte[] userData, String reason) {
    static final byte[] NONE = new byte[0];

    public Notification {
        requireNonNull(status, "status is null");
        requireNonNull(payload, "payload is null");
        requireNonNull(userData, "userData is null");
        requireNonNull(reason, "reason is null");
    }

    /** A notification without a reason. */
    public Notification(UromStatus status, byte[] payload, byte[] userData) {
        this(status, payload, userData, "");
    }

    static Notification failed(UromStatus status, byte[] userData) {
        return new Notification(status, NONE, userData);
    }

    static Notification failed(UromStatus status, byte[] userData, String reason) {
        return new Notification(status, NONE, userData, reason);
    }

    public boolean isSuccess() {
        return status.isSuccess();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Notification n
                && n.status == status
                && Arrays.equals(n.payload, payload)
                && Arrays.equals(n.userData, userData)
                && n.reason.equals(reason);
    }

    @Override
    public int hashCode() {
        return ((status.hashCode() * 31 + Arrays.hashCode(payload)) * 31 + Arrays.hashCode(userData)) * 31
                + reason.hashCode();
    }

    @Override
    public String toString() {
        return "Notification[status=" + status + ", payload=" + payload.length + " bytes, userData=" + userData.length
                + " bytes" + (reason.isEmpty() ? "" : ", reason=" + reason) + "]";
    }
}
