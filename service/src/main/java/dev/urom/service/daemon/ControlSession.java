// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import java.util.Optional;

/**
 * An admitted control connection as the requests see it: its name in log lines, who it is, and the
 * key it proved (a key principal's).
 */
record ControlSession(String peer, Principal principal, Optional<AuthKey> key) {
    ControlSession {
        requireNonNull(peer, "peer is null");
        requireNonNull(principal, "principal is null");
        requireNonNull(key, "key is null");
    }
}
