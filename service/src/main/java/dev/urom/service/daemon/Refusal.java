// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromStatus;

/**
 * Why a request was not carried out: the status for the reply and one line for the host and the
 * log. Immutable.
 */
record Refusal(UromStatus status, String message) {
    Refusal {
        requireNonNull(status, "status is null");
        requireNonNull(message, "message is null");
        if (status.isSuccess()) {
            throw new IllegalArgumentException("a refusal cannot carry SUCCESS");
        }
    }
}
