// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker that reads its host's maps but may not attach to its memory (Yama's rule, played here by
 * a seccomp filter in a child JVM that is both host and worker) refuses TEAM_CREATE with
 * HOST_UNREACHABLE, on both plugins, instead of failing at the first collective.
 */
class AttachRefusedTest {
    @TempDir
    Path dir;

    @Test
    void bothPluginsRefuseATeamWhenCrossMemoryAttachIsRefused() throws Exception {
        assertThat(child("refuse")).containsExactly("c HOST_UNREACHABLE", "java HOST_UNREACHABLE");
    }

    @Test
    void withoutTheFilterTheSameTeamIsCreated() throws Exception {
        assertThat(child("allow")).containsExactly("c NONE", "java NONE");
    }

    private List<String> child(String mode) throws IOException, InterruptedException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path out = dir.resolve(mode + ".out");
        Process process = new ProcessBuilder(
                        java.toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        AttachRefusedMain.class.getName(),
                        mode,
                        NativeCollFixture.SO.toAbsolutePath().toString())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        String printed = Files.readString(out);
        assertThat(ended)
                .as("the child ended within 60 s; its output: %s", printed)
                .isTrue();
        assertThat(process.exitValue())
                .as("the child's exit status; its output: %s", printed)
                .isZero();
        return printed.lines()
                .filter(line -> line.startsWith("c ") || line.startsWith("java "))
                .toList();
    }
}
