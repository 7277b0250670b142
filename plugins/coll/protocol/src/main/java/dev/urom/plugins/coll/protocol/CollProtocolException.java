// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.protocol;

import java.util.Objects;

/**
 * Bytes that are not what the protocol allows, with the {@link Reason} to answer them with
 * ({@link Reason#BAD_COMMAND} for every decode failure) and a one-line message naming the field.
 */
public final class CollProtocolException extends Exception {
    private static final long serialVersionUID = 1L;

    private final Reason reason;

    public CollProtocolException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason is null");
    }

    public Reason reason() {
        return reason;
    }

    static CollProtocolException bad(String message) {
        return new CollProtocolException(Reason.BAD_COMMAND, message);
    }
}
