// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.discovery;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.javaplugin.InvalidJavaPluginException;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.nativebridge.NativeProbe;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Probes native candidates in a child process ({@link NativeProbe}, which kills a probe that
 * outlives the time limit) and Java candidates with {@link JavaPluginLoader#check} (no plugin code
 * runs). Stateless apart from the time limit; thread-safe.
 */
public final class DefaultCandidateProber implements CandidateProber {
    /** The native probe's time limit unless another is given. */
    public static final Duration DEFAULT_NATIVE_TIMEOUT = Duration.ofSeconds(10);

    private final Duration nativeTimeout;

    public DefaultCandidateProber() {
        this(DEFAULT_NATIVE_TIMEOUT);
    }

    public DefaultCandidateProber(Duration nativeTimeout) {
        this.nativeTimeout = requireNonNull(nativeTimeout, "nativeTimeout is null");
        if (nativeTimeout.isNegative() || nativeTimeout.isZero()) {
            throw new IllegalArgumentException("native probe timeout " + nativeTimeout + " is not positive");
        }
    }

    public Duration nativeTimeout() {
        return nativeTimeout;
    }

    @Override
    public ProbeVerdict probe(Path file, PluginKind kind) {
        return switch (kind) {
            case NATIVE -> probeNative(file);
            case JAVA -> probeJava(file);
        };
    }

    private ProbeVerdict probeNative(Path file) {
        var outcome = NativeProbe.probe(file, nativeTimeout);
        if (outcome.accepted()) {
            return ProbeVerdict.accepted(outcome.version());
        }
        String reason = outcome.reason();
        return ProbeVerdict.rejected(reason.contains(file.toString()) ? reason : file + ": " + reason);
    }

    private static ProbeVerdict probeJava(Path file) {
        try {
            return ProbeVerdict.accepted(JavaPluginLoader.check(file).version());
        } catch (InvalidJavaPluginException e) {
            return ProbeVerdict.rejected(e.getMessage());
        }
    }
}
