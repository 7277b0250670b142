// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;

/**
 * One decoded frame.
 *
 * @param requestId a control request's id, echoed by its reply; 0 elsewhere
 * @param message the body
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public record Frame(long requestId, Message message) {
    public Frame {
        requireNonNull(message, "message is null");
    }
}
