package dev.urom.wire;

import static java.util.Objects.requireNonNull;

/**
 * One decoded frame.
 *
 * @param requestId a control request's id, echoed by its reply; 0 elsewhere
 * @param message the body
 */
public record Frame(long requestId, Message message) {
    public Frame {
        requireNonNull(message, "message is null");
    }
}
