// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromStatus;

/**
 * Why a plugin of a worker could not be loaded or opened. Every command addressed to it is answered
 * with {@link #status()}. Immutable.
 *
 * @param spec the plugin's item
 * @param status the status its commands get
 * @param reason one line: what failed and why
 */
public record PluginFailure(PluginSpec spec, UromStatus status, String reason) {
    public PluginFailure {
        requireNonNull(spec, "spec is null");
        requireNonNull(status, "status is null");
        requireNonNull(reason, "reason is null");
    }

    /** One line for the user: the plugin, its file, the status and the reason. */
    @Override
    public String toString() {
        return "plugin '" + spec.name() + "' (" + spec + "): " + status + ": " + reason;
    }
}
