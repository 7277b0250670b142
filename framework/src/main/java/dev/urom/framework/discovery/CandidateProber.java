// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import java.nio.file.Path;

/**
 * Decides whether one candidate file is a usable plugin. Implementations must be thread-safe,
 * must not run plugin code in the calling process, and report every problem with the file as a
 * rejection; a {@link RuntimeException} means the probe itself could not run (the verdict is then
 * not cached).
 */
@FunctionalInterface
public interface CandidateProber {
    ProbeVerdict probe(Path file, PluginKind kind);
}
