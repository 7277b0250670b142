// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.host;

import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;

/**
 * A command of the collectives plugin that did not succeed: its status, and the plugin's reason
 * and detail (a rank or a field, where the reason names one; docs/collectives.md). A command the
 * worker refused outright carries its status and reason {@link Reason#NONE}. Immutable.
 */
public final class CollException extends UromException {
    private static final long serialVersionUID = 1L;

    private final transient Reason reason;
    private final long detail;

    public CollException(UromStatus status, Reason reason, long detail, String message) {
        super(status, message);
        this.reason = reason;
        this.detail = detail;
    }

    public Reason reason() {
        return reason;
    }

    public long detail() {
        return detail;
    }
}
