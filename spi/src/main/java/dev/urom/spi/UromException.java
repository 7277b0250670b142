// SPDX-License-Identifier: Apache-2.0
package dev.urom.spi;

import static java.util.Objects.requireNonNull;

/**
 * A failure with a status, thrown by plugins and by the framework where the C ABI would return a
 * status other than {@link UromStatus#SUCCESS}. The worker turns it into a notification that
 * carries {@link #status()}.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public class UromException extends Exception {
    private static final long serialVersionUID = 1L;

    private final UromStatus status;

    public UromException(UromStatus status, String message) {
        super(message);
        this.status = requireNonNull(status, "status is null");
        if (status.isSuccess()) {
            throw new IllegalArgumentException("an exception cannot carry SUCCESS");
        }
    }

    public UromException(UromStatus status, String message, Throwable cause) {
        this(status, message);
        initCause(cause);
    }

    public UromStatus status() {
        return status;
    }
}
