// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static java.util.Objects.requireNonNull;

/**
 * A command on its way to a plugin: {@code struct urom_worker_cmd_desc} in Java form.
 *
 * <p>The payload array is owned by the command and must not be changed by anyone once the
 * command is built: the record does not copy it, so that a command costs one allocation.
 *
 * @param destId the host connection that sent the command; a reply carries it back
 * @param type the id of the plugin the command is addressed to
 * @param uromContext the framework's context; a reply carries it back unchanged
 * @param payload the plugin command bytes ({@code plugin_cmd}, {@code len} of them)
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public record WorkerCommand(long destId, long type, long uromContext, byte[] payload) {
    /** Bytes of {@code struct urom_worker_cmd} before {@code plugin_cmd}: type, context, len. */
    public static final int HEADER_BYTES = 24;

    public WorkerCommand {
        requireNonNull(payload, "payload is null");
    }

    /** Size of this command as the ABI and the wire count it: header plus payload. */
    public int sizeWithHeader() {
        return HEADER_BYTES + payload.length;
    }
}
