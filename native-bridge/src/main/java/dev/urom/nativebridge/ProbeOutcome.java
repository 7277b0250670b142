// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static java.util.Objects.requireNonNull;

/**
 * What probing one native plugin found: accepted with its version, or rejected with a one-line
 * reason that names the file. Immutable.
 */
public sealed interface ProbeOutcome {
    boolean accepted();

    /** The plugin's {@code urom_plugin_get_version}; 0 for a rejected plugin. */
    long version();

    /** Why the plugin was rejected; empty for an accepted plugin. */
    String reason();

    static ProbeOutcome accepted(long version) {
        return new Accepted(version);
    }

    static ProbeOutcome rejected(String reason) {
        return new Rejected(reason);
    }

    /** The plugin loaded and answered both entry points. */
    record Accepted(long version) implements ProbeOutcome {
        @Override
        public boolean accepted() {
            return true;
        }

        @Override
        public String reason() {
            return "";
        }
    }

    /** The plugin cannot be used; {@code reason} says why and names the file. */
    record Rejected(String reason) implements ProbeOutcome {
        public Rejected {
            requireNonNull(reason, "reason is null");
        }

        @Override
        public boolean accepted() {
            return false;
        }

        @Override
        public long version() {
            return 0;
        }
    }
}
