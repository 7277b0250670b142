// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FootprintOptionsTest {
    @TempDir
    Path dir;

    @Test
    void optionsAreReadInOrderAndWorkerJvmOptionsAddUp() throws Exception {
        Path dist = distribution();

        FootprintOptions options = FootprintOptions.parse(List.of(
                "--workers",
                "8",
                "--starts",
                "2",
                "--dist",
                dist.toString(),
                "--worker-jvm-option",
                "-Xmn2m",
                "--worker-jvm-option",
                "-Dx=y",
                "--hold-seconds",
                "5",
                "--worker-user",
                "urom",
                "--json",
                "out.json"));

        assertThat(options.workers()).isEqualTo(8);
        assertThat(options.starts()).isEqualTo(2);
        assertThat(options.dist()).isEqualTo(dist);
        assertThat(options.javaHome()).isEqualTo(Path.of(System.getProperty("java.home")));
        assertThat(options.workerJvmOptions()).containsExactly("-Xmn2m", "-Dx=y");
        assertThat(options.holdSeconds()).isEqualTo(5);
        assertThat(options.workerUser()).isEqualTo("urom");
        assertThat(options.json()).isEqualTo(Path.of("out.json"));
    }

    @Test
    void badOptionsAreOneLine() throws Exception {
        String dist = distribution().toString();
        assertThatThrownBy(() -> FootprintOptions.parse(List.of("--dist", dist, "--workers", "0")))
                .hasMessage("--workers '0' is not a whole number from 1 to 1024");
        assertThatThrownBy(() -> FootprintOptions.parse(List.of("--dist", dist, "--starts", "x")))
                .hasMessage("--starts 'x' is not a whole number from 1 to 1000");
        assertThatThrownBy(() -> FootprintOptions.parse(List.of("--dist", dist, "--cores", "2")))
                .hasMessage("unknown argument '--cores'; " + FootprintOptions.USAGE);
        assertThatThrownBy(() -> FootprintOptions.parse(
                        List.of("--dist", dir.resolve("none").toString())))
                .hasMessage("--dist " + dir.resolve("none")
                        + " has no bin/urom; build it first: mvn -B -q package -DskipTests");
        assertThatThrownBy(() -> FootprintOptions.parse(List.of("--dist", dist, "--java-home", dir.toString())))
                .hasMessage("--java-home " + dir + " has no bin/java");
    }

    /** A folder with an executable bin/urom, which is all the options look for. */
    private Path distribution() throws Exception {
        Path launcher =
                Files.createDirectories(dir.resolve("dist").resolve("bin")).resolve("urom");
        Files.writeString(launcher, "#!/bin/sh\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        return dir.resolve("dist");
    }
}
