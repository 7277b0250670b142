// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * worker_sandbox.so's optional entry points (transport name, wake-up descriptor, arm) and its
 * answers to UCX requests that complete at once, driven by the C probe {@code
 * src/test/c/sandbox_ucp_probe.c}: two plugin instances in one process, no worker. The probe runs
 * once per case and prints one line.
 */
class SandboxUcpNativeIT {
    private static final String SOURCES_PROPERTY = "urom.sandbox.sources";
    private static final String INCLUDE_PROPERTY = "urom.include.dir";

    @TempDir
    static Path build;

    private static Path probe;

    @BeforeAll
    static void compileProbe() throws Exception {
        String sources = System.getProperty(SOURCES_PROPERTY);
        String include = System.getProperty(INCLUDE_PROPERTY);
        assertThat(sources)
                .as("system property " + SOURCES_PROPERTY + " (the module's src, set by its pom)")
                .isNotBlank();
        assertThat(include)
                .as("system property " + INCLUDE_PROPERTY + " (the SPI's C headers, set by the parent pom)")
                .isNotBlank();
        probe = build.resolve("sandbox_ucp_probe");
        List<String> command = List.of(
                "cc",
                "-std=gnu11",
                "-O2",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-I" + include,
                Path.of(sources, "test", "c", "sandbox_ucp_probe.c").toString(),
                "-o",
                probe.toString(),
                "-ldl");
        Result compiled = run(command);
        assertThat(compiled.exit())
                .as("cc of the probe:\n%s", compiled.output())
                .isZero();
    }

    @Test
    void theTransportIsUcpTag() throws Exception {
        assertThat(probe("transport")).isEqualTo("ucp-tag");
    }

    /**
     * Armed with a receive posted and nothing pending, the descriptor stays quiet; a message for
     * the receive makes it readable, arm then says AGAIN (work is pending), and progress answers it.
     */
    @Test
    void theWakeUpDescriptorBecomesReadableWhenAMessageArrivesForAPostedReceive() throws Exception {
        assertThat(probe("wakeup"))
                .isEqualTo("armed idle=quiet message=readable arm=AGAIN received=SUCCESS:wake:tag=0x77");
    }

    /**
     * A short send UCX completes inside worker_cmd, and a receive that matches a message already in
     * UCX's unexpected queue, are answered (at once: arm says AGAIN before any progress), with the
     * receive's data and sender tag.
     */
    @Test
    void requestsThatCompleteAtOnceAreAnswered() throws Exception {
        assertThat(probe("at-once")).isEqualTo("send-arm=AGAIN send=SUCCESS recv-arm=AGAIN recv=SUCCESS:now:tag=0x2");
    }

    /** UCX aborts the process on an address of a format it does not know: the plugin refuses one first. */
    @Test
    void anAddressThatIsNotAUcpWorkerAddressIsRefused() throws Exception {
        assertThat(probe("garbage")).isEqualTo("send=INVALID_VALUE");
    }

    @Test
    void theOptionalEntryPointsRefuseMissingArguments() throws Exception {
        assertThat(probe("refusals"))
                .isEqualTo("transport(NULL)=INVALID_VALUE fd(NULL)=INVALID_VALUE fd(unopened)=INVALID_VALUE"
                        + " fd(no out)=INVALID_VALUE arm(NULL)=INVALID_VALUE arm(unopened)=INVALID_VALUE");
    }

    private record Result(int exit, String output) {}

    /** Runs the probe on the built plugin; its stdout line, after checking it exited with 0. */
    private static String probe(String which) throws Exception {
        List<String> command = List.of(
                probe.toString(), NativeFixtures.builtFile("urom.sandbox.so").toString(), which);
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Result result = finish(command, process);
        assertThat(result.exit())
                .as("exit status of %s (128 + n: killed by signal n); output: %s", command, result.output())
                .isZero();
        return result.output().strip();
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        return finish(
                command, new ProcessBuilder(command).redirectErrorStream(true).start());
    }

    private static Result finish(List<String> command, Process process) throws IOException, InterruptedException {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                throw new AssertionError(command + " did not finish within 60 s");
            }
            return new Result(
                    process.exitValue(), new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            process.destroyForcibly();
        }
    }
}
