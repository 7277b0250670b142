// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.cli.CliRunner;
import dev.urom.service.testkit.TestWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code urom ping-pong}: real rank processes, a private daemon, real sandbox workers in one domain
 * formed through the TCP rendezvous — C with C, Java with Java, and C with Java.
 */
class PingPongTest {
    @ParameterizedTest
    @ValueSource(strings = {"worker_sandbox", "worker_sandbox_java", "mixed"})
    void theMessageGoesAroundTheRingAndBack(String plugin, @TempDir Path dir) throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("sandbox"));
        Path build = Path.of(System.getProperty("urom.sandbox.build", "../plugins/sandbox/target"));
        Files.copy(build.resolve("worker_sandbox.so"), plugins.resolve("worker_sandbox.so"));
        Files.copy(build.resolve("worker_sandbox_java.jar"), plugins.resolve("worker_sandbox_java.jar"));

        List<String> args = new java.util.ArrayList<>(
                List.of("ping-pong", "--ranks", "2", "--message", "hello", "--plugin", plugin, "--rounds", "10"));
        args.addAll(List.of(TestWorkers.options()));
        CliRunner.Run run = CliRunner.run(plugins.toString(), args.toArray(String[]::new));

        assertThat(run.status()).as(run.out() + run.err()).isZero();
        String rank0Kind = plugin.equals("worker_sandbox_java") ? "java" : "native";
        String rank1Kind = plugin.equals("worker_sandbox") ? "native" : "java";
        assertThat(run.out())
                .contains("rank 0: worker ")
                .contains("(" + rank0Kind + ") joined the domain of 2 ranks")
                .contains("rank 0: sent 'hello' to rank 1; received 'hello' (tag 0x1234) back from rank 1")
                .contains("rank 1: received 'hello' (tag 0x5678); sent it to rank 0")
                .contains("(" + rank1Kind + ") joined the domain of 2 ranks")
                .contains("rank 0: 10 round trips through 2 ranks: p50 ")
                .endsWith("ping-pong passed.\n");
        assertThat(ProcessHandle.current()
                        .children()
                        .filter(ProcessHandle::isAlive)
                        .count())
                .as("ranks and workers all ended")
                .isZero();
    }

    @org.junit.jupiter.api.Test
    void aRankThatCannotReachTheServiceIsOneLineWithItsReason(@TempDir Path dir) {
        String address = "unix:" + dir.resolve("nobody.sock");

        CliRunner.Run run =
                CliRunner.run("/nonexistent", "ping-pong", "--ranks", "2", "--message", "x", "--service", address);

        assertThat(run.status()).isEqualTo(1);
        assertThat(run.errLines())
                .containsExactly("urom ping-pong: rank 0 did not start: urom ping-pong-rank: cannot connect to "
                        + address + ": No such file or directory");
        assertThat(ProcessHandle.current()
                        .children()
                        .filter(ProcessHandle::isAlive)
                        .count())
                .as("no rank left")
                .isZero();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "--rank 2 --size 2 --rendezvous 127.0.0.1:0 --worker-env UCX_TLS=tcp | --rank 2: not between 0 and --size - 1 (1)",
                "--rank -1 --size 2 --rendezvous 127.0.0.1:0 | --rank -1: not between 0 and --size - 1 (1)",
                "--rank 0 --size 1 --rendezvous 127.0.0.1:0 | --size 1: the ping-pong needs at least 2 ranks",
                "--rank 0 --size 2 --rendezvous 127.0.0.1 | --rendezvous 127.0.0.1: not HOST:PORT with a port from 0 to 65535",
                "--rank 0 --size 2 --rendezvous host:70000 | --rendezvous host:70000: not HOST:PORT with a port from 0 to 65535",
                "--rank 0 --size 2 --rendezvous :7 | --rendezvous :7: not HOST:PORT with a port from 0 to 65535",
                "--rank 0 --size 2 --rendezvous 127.0.0.1:0 --worker-env UCX_TLS | --worker-env UCX_TLS: not NAME=VALUE",
            })
    void aRankWithBadOptionsIsAUsageErrorSayingWhichBeforeItConnects(String options, String error, @TempDir Path dir) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "ping-pong-rank",
                "--service",
                "unix:" + dir.resolve("none.sock"),
                "--message",
                "x",
                "--plugin",
                "worker_sandbox"));
        args.addAll(List.of(options.split(" ")));

        CliRunner.Run run = CliRunner.run("/nonexistent", args.toArray(String[]::new));

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.errLines())
                .containsExactly("urom ping-pong-rank: " + error, "(see: urom ping-pong-rank --help)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "0"})
    void fewerThanTwoRanksIsAUsageError(String ranks) {
        CliRunner.Run run = CliRunner.run("/nonexistent", "ping-pong", "--ranks", ranks, "--message", "x");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.errLines())
                .containsExactly(
                        "urom ping-pong: --ranks " + ranks + ": the ping-pong needs at least 2 ranks",
                        "(see: urom ping-pong --help)");
    }
}
