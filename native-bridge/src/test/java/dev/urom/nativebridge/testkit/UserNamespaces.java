// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Whether this kernel lets the test's user make a user namespace ({@code unshare --user
 * --map-root-user}), which the tests that act as root of one need. Some kernels refuse it
 * (Ubuntu 24.04's AppArmor rule for unconfined programs, {@code kernel.unprivileged_userns_clone=0},
 * {@code user.max_user_namespaces=0}, a container's seccomp profile); those tests are then reported
 * as skipped with the kernel's answer, never failed for it and never silently passed.
 *
 * <p>Thread-safe: the probe runs once per JVM.
 */
public final class UserNamespaces {
    private static final long PROBE_SECONDS = 30;
    private static volatile String refusal;
    private static volatile boolean probed;

    private UserNamespaces() {}

    /**
     * Aborts the calling test (JUnit reports it skipped) with one line naming the kernel's refusal
     * when this user cannot make a user namespace.
     */
    public static void assumeAvailable() {
        String why = refusal();
        Assumptions.assumeTrue(
                why == null, () -> "needs user namespaces, which this machine refuses this user: " + why);
    }

    /** Why {@code unshare --user --map-root-user true} failed here, or null when it worked. */
    static synchronized String refusal() {
        if (!probed) {
            refusal = probe(List.of("unshare", "--user", "--map-root-user", "true"));
            probed = true;
        }
        return refusal;
    }

    static String probe(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            if (!process.waitFor(PROBE_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return String.join(" ", command) + " did not end within " + PROBE_SECONDS + " s";
            }
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (process.exitValue() == 0) {
                return null;
            }
            String line = output.isEmpty()
                    ? "exit status " + process.exitValue()
                    : output.lines().reduce((a, b) -> b).orElse(output);
            return String.join(" ", command) + ": " + line;
        } catch (IOException e) {
            return String.join(" ", command) + ": " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while probing " + String.join(" ", command);
        }
    }
}
