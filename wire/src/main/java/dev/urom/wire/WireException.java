// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;

/**
 * A frame that cannot be accepted; the connection it came on must be closed. The message is one
 * line naming the message type or the limit and what is wrong.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public class WireException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a frame was refused. */
    public enum Reason {
        FRAME_TOO_LARGE,
        MALFORMED,
        UNKNOWN_TYPE
    }

    private final Reason reason;

    public WireException(Reason reason, String message) {
        super(message);
        this.reason = requireNonNull(reason, "reason is null");
    }

    public Reason reason() {
        return reason;
    }
}
