// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.cli.CliRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The host commands against a real TCP daemon that holds keys ({@code --auth-keys}): each proves
 * the key of {@code --auth-key-file}, and a missing, wrong or badly kept key is one line.
 */
class KeyedServiceCommandsTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (tcp:[0-9.]+:[0-9]+)");

    @TempDir
    static Path dir;

    static ServiceHarness daemon;
    static String address;
    static Path jobA;

    @BeforeAll
    static void startDaemon() throws Exception {
        Path keys = Files.createDirectories(dir.resolve("keys"));
        Files.setAttribute(keys, "unix:mode", 0700);
        assertThat(CliRunner.run(null, "keygen", keys.resolve("jobA.key").toString())
                        .status())
                .isZero();
        jobA = keys.resolve("jobA.key");
        daemon = ServiceHarness.start(dir, Map.of(), "--listen", "tcp:127.0.0.1:0", "--auth-keys", keys.toString());
        Matcher listening = LISTENING.matcher(String.join("\n", daemon.output()));
        assertThat(listening.find()).as("daemon output: %s", daemon.output()).isTrue();
        address = listening.group(1);
    }

    @AfterAll
    static void stopDaemon() throws Exception {
        if (daemon != null) {
            daemon.close();
        }
    }

    @Test
    void withTheKeyEveryHostCommandIsServed() {
        CliRunner.Run loopback = CliRunner.run(
                null, "loopback", "--service", address, "--auth-key-file", jobA.toString(), "--value", "42");
        CliRunner.Run plugins =
                CliRunner.run(null, "plugins", "--service", address, "--auth-key-file", jobA.toString());
        CliRunner.Run workers =
                CliRunner.run(null, "workers", "--service", address, "--auth-key-file", jobA.toString());

        assertThat(loopback.status()).as(loopback.err()).isZero();
        assertThat(loopback.out()).startsWith("loopback 42 -> 42 via worker_graph");
        assertThat(plugins.status()).as(plugins.err()).isZero();
        assertThat(plugins.out()).contains("worker_graph").contains("worker_graph_java");
        assertThat(workers.status()).as(workers.err()).isZero();
    }

    @Test
    void withoutAKeyTheCommandFailsInOneLineThatSaysHowToGiveOne() {
        CliRunner.Run run = CliRunner.run(null, "plugins", "--service", address);

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.out()).isEmpty();
        assertThat(run.errLines())
                .containsExactly("urom plugins: " + address + " refused the connection: this daemon admits TCP hosts "
                        + "that prove a key: give one with --auth-key-file or UROM_AUTH_KEY_FILE");
    }

    @Test
    void aWrongKeyOfTheSameNameFailsInOneLine() throws Exception {
        Path elsewhere = Files.createDirectories(dir.resolve("wrong"));
        Path wrong = elsewhere.resolve("jobA.key");
        assertThat(CliRunner.run(null, "keygen", wrong.toString()).status()).isZero();

        CliRunner.Run run = CliRunner.run(
                null, "loopback", "--service", address, "--auth-key-file", wrong.toString(), "--value", "1");

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.errLines())
                .singleElement()
                .asString()
                .startsWith("urom loopback: ")
                .contains("the proof does not match the key of principal 'jobA'");
    }

    @Test
    void aKeyFileOthersMayReadIsRefusedNamingTheFileAndItsMode() throws Exception {
        Path exposed = Files.createDirectories(dir.resolve("exposed")).resolve("jobA.key");
        Files.copy(jobA, exposed);
        Files.setAttribute(exposed, "unix:mode", 0644);

        CliRunner.Run run = CliRunner.run(null, "workers", "--service", address, "--auth-key-file", exposed.toString());

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.errLines())
                .singleElement()
                .asString()
                .startsWith("urom workers: ")
                .contains("--auth-key-file")
                .contains("key file " + exposed + " (mode 0644")
                .contains("may be read by others");
    }

    @Test
    void aKeyFileWithAScanIsAUsageError() {
        CliRunner.Run run = CliRunner.run(dir.toString(), "plugins", "--scan", "--auth-key-file", jobA.toString());

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.errLines()).first().isEqualTo("urom plugins: --auth-key-file goes with --service, not --scan");
    }
}
