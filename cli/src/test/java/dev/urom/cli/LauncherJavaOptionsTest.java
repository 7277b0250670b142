// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The distribution's and the image's launchers, run for real with a stand-in {@code java} that
 * prints its arguments: {@code urom daemon} gets the bounded heap, other commands do not, and
 * {@code UROM_DAEMON_JAVA_OPTS} replaces it (empty: no limit), with {@code UROM_JAVA_OPTS} after it.
 */
class LauncherJavaOptionsTest {
    private static final Path DIST_LAUNCHER = Path.of("src/main/dist/bin/urom");
    private static final Path IMAGE_LAUNCHER = Path.of("../image/src/main/jib/opt/urom/bin/urom");
    private static final List<String> DAEMON_HEAP = List.of("-Xmx64m", "-XX:MaxMetaspaceSize=128m");

    @TempDir
    Path dir;

    /** The arguments the launcher at {@code launcher} gives java, run by {@code shell} with {@code env} added. */
    private List<String> javaArguments(String shell, Path launcher, Map<String, String> env, String... args)
            throws Exception {
        Path bin = Files.createDirectories(dir.resolve("jdk/bin"));
        Path fakeJava = bin.resolve("java");
        Files.writeString(fakeJava, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
        Files.setPosixFilePermissions(fakeJava, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path copy = Files.createDirectories(dir.resolve("dist/bin")).resolve("urom");
        Files.copy(launcher, copy, StandardCopyOption.REPLACE_EXISTING);
        List<String> command = new ArrayList<>(List.of(shell, copy.toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("UROM_DAEMON_JAVA_OPTS");
        builder.environment().remove("UROM_JAVA_OPTS");
        builder.environment().put("PATH", bin + ":/usr/bin:/bin");
        builder.environment().put("JAVA_HOME", dir.resolve("jdk").toString());
        builder.environment().put("UROM_HOME", dir.resolve("dist").toString());
        builder.environment().putAll(env);
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(out).isZero();
        return out.lines().toList();
    }

    private void checkLauncher(String shell, Path launcher) throws Exception {
        assertThat(javaArguments(shell, launcher, Map.of(), "daemon", "-l", "60"))
                .containsSequence(DAEMON_HEAP)
                .endsWith("dev.urom.cli.Main", "daemon", "-l", "60");
        assertThat(javaArguments(shell, launcher, Map.of(), "plugins"))
                .doesNotContainAnyElementsOf(DAEMON_HEAP)
                .endsWith("dev.urom.cli.Main", "plugins");
        List<String> replaced = javaArguments(
                shell,
                launcher,
                Map.of("UROM_DAEMON_JAVA_OPTS", "-Xmx256m -Xss512k", "UROM_JAVA_OPTS", "-Dx=1"),
                "daemon");
        assertThat(replaced).doesNotContainAnyElementsOf(DAEMON_HEAP).containsSequence("-Xmx256m", "-Xss512k", "-Dx=1");
        assertThat(javaArguments(shell, launcher, Map.of("UROM_DAEMON_JAVA_OPTS", ""), "daemon"))
                .noneMatch(a -> a.startsWith("-Xmx"));
    }

    @Test
    void theDistributionsLauncherBoundsTheDaemonsHeapOnly() throws Exception {
        checkLauncher("bash", DIST_LAUNCHER);
    }

    @Test
    void theImagesLauncherBoundsTheDaemonsHeapOnly() throws Exception {
        checkLauncher("sh", IMAGE_LAUNCHER);
    }
}
