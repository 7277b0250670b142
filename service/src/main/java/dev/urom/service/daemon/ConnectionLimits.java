// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.Principal;
import java.util.HashMap;
import java.util.Map;

/**
 * The daemon's count of admitted control connections per principal, against {@code
 * --max-connections-per-principal}. (The total, admitted or not, is capped where connections are
 * accepted.) Thread-safe.
 */
final class ConnectionLimits {
    private final int perPrincipal;
    private final Map<Principal, Integer> open = new HashMap<>();

    ConnectionLimits(int perPrincipal) {
        this.perPrincipal = perPrincipal;
    }

    int perPrincipal() {
        return perPrincipal;
    }

    /** Counts one more connection of {@code principal}; false (and nothing counted) when it has its maximum. */
    synchronized boolean tryAcquire(Principal principal) {
        int now = open.getOrDefault(principal, 0);
        if (now >= perPrincipal) {
            return false;
        }
        open.put(principal, now + 1);
        return true;
    }

    /** One connection of {@code principal} has ended. */
    synchronized void release(Principal principal) {
        open.computeIfPresent(principal, (p, n) -> n <= 1 ? null : n - 1);
    }
}
