// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;

/**
 * A candidate file that a scan did not accept, and why: one line that names the file.
 * Immutable.
 */
public record Rejection(Path path, String reason) {
    public Rejection {
        requireNonNull(path, "path is null");
        requireNonNull(reason, "reason is null");
    }
}
