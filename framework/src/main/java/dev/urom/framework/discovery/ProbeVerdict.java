// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

/**
 * What probing one candidate file concluded: accepted with the plugin's version, or rejected with
 * a one-line reason that names the file. Immutable.
 */
public record ProbeVerdict(boolean accepted, long version, String reason) {
    public ProbeVerdict {
        requireNonNull(reason, "reason is null");
    }

    public static ProbeVerdict accepted(long version) {
        return new ProbeVerdict(true, version, "");
    }

    public static ProbeVerdict rejected(String reason) {
        return new ProbeVerdict(false, 0, reason);
    }
}
