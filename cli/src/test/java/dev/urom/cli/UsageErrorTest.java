// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every option value the command line rejects after parsing (out of range, not an address, not hex)
 * is a usage error like a value picocli rejects: exit status 2, one line naming the option, and the
 * {@code (see: urom COMMAND --help)} line. The daemon cases give a listen socket and a log directory
 * in a temporary directory, which must stay untouched: the daemon starts nothing before its options
 * are checked.
 */
class UsageErrorTest {
    @TempDir
    static Path dir;

    static Stream<Arguments> badValues() {
        return Stream.of(
                daemon("-m", "10"),
                daemon("--max-msg-size", "999999999"),
                daemon("--max-workers", "3"),
                daemon("-l", "55"),
                daemon("--log-level", "loud"),
                daemon("--sdk-log-level", "5"),
                daemon("--listen", "udp:host:1"),
                daemon("--listen", "unix:relative.sock"),
                daemon("--listen", "tcp:host"),
                daemon("--http-port", "70000"),
                daemon("--http-port", "-1"),
                daemon("--log-file-size", "10"),
                daemon("--log-file-count", "1"),
                daemon("--worker-log-count", "-1"),
                daemon("--worker-log-max-age", "5x"),
                daemon("--max-inflight", "3"),
                daemon("--handshake-timeout-ms", "0"),
                daemon("--max-connections", "0"),
                daemon("--max-workers-per-principal", "-1"),
                daemon("--worker-env-allow", "A B"),
                daemon("--worker-uid-range", "0-100"),
                daemon("--worker-uid-range", "200-100"),
                daemon("--worker-uid-range", "1-4294967295"),
                daemon("--worker-uid-range", "70000"),
                daemon("--listen", "tcp:127.0.0.1:0"),
                Arguments.of("doctor", List.of("doctor", "--listen", "udp:x"), "--listen"),
                Arguments.of(
                        "exec", List.of("exec", "--plugin", "worker_graph", "--payload-hex", "zz"), "--payload-hex"),
                Arguments.of("cmd", List.of("cmd", "--plugin", "worker_graph", "--payload-hex", "0"), "--payload-hex"),
                Arguments.of(
                        "cmd",
                        List.of("cmd", "--service", "udp:x", "--plugin", "worker_graph", "--payload-hex", "00"),
                        "--service"),
                Arguments.of("workers", List.of("workers", "--service", "unix:relative"), "--service"),
                Arguments.of("loopback", List.of("loopback", "--service", "nowhere", "--value", "1"), "--service"),
                Arguments.of("ping-pong", List.of("ping-pong", "--ranks", "1", "--message", "m"), "--ranks"),
                Arguments.of("ping-pong", List.of("ping-pong", "--plugin", "nope", "--message", "m"), "--plugin"),
                Arguments.of("ping-pong-rank", rank("--size", "1"), "--size"),
                Arguments.of("ping-pong-rank", rank("--rank", "5"), "--rank"),
                Arguments.of("ping-pong-rank", rank("--rendezvous", "host"), "--rendezvous"),
                Arguments.of("ping-pong-rank", rank("--worker-env", "NOEQUALS"), "--worker-env"),
                Arguments.of(
                        "new-plugin",
                        List.of("new-plugin", "Bad-Name", "--lang", "c", "--dir", dir.toString()),
                        "plugin name"));
    }

    private static Arguments daemon(String option, String value) {
        List<String> args = new ArrayList<>(List.of(
                "daemon",
                "--listen",
                "unix:" + dir.resolve("d.sock"),
                "--log-dir",
                dir.resolve("log").toString()));
        args.addAll(List.of(option, value));
        String named = option.equals("-m") ? "--max-msg-size" : option.equals("-l") ? "--log-level" : option;
        return Arguments.of("daemon", args, named);
    }

    private static List<String> rank(String option, String value) {
        List<String> args = new ArrayList<>(List.of(
                "ping-pong-rank",
                "--rank",
                "0",
                "--size",
                "2",
                "--rendezvous",
                "127.0.0.1:0",
                "--message",
                "m",
                "--plugin",
                "worker_sandbox"));
        args.addAll(List.of(option, value));
        return args;
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("badValues")
    void aBadValueIsAUsageErrorWithTheHint(String command, List<String> args, String named) {
        CliRunner.Run run = CliRunner.run(null, args.toArray(String[]::new));

        assertThat(run.status()).as(run.err()).isEqualTo(2);
        assertThat(run.errLines()).as(run.err()).hasSize(2);
        assertThat(run.errLines().get(0))
                .startsWith("urom " + command + ": ")
                .contains(named)
                .doesNotContain("\tat ");
        assertThat(run.errLines().get(1)).isEqualTo("(see: urom " + command + " --help)");
        assertThat(run.out()).isEmpty();
        assertThat(dir.resolve("d.sock")).doesNotExist();
        assertThat(dir.resolve("log")).doesNotExist();
    }
}
