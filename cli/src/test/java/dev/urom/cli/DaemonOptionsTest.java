// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.service.daemon.UidRange;
import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.WorkerLogRetention;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class DaemonOptionsTest {
    @Test
    void serviceArgsAreReadAsUromDaemonReadsThem() {
        DaemonOptions options = DaemonOptions.parse(
                "-l 60  -m 8192 --listen tcp:0.0.0.0:7300 --auth-keys /etc/urom/keys --log-dir=/var/log/x"
                        + " --http-port 7301 --http-host 0.0.0.0 -l 70",
                "/a;/b");

        assertThat(options.config().logLevel()).as("the last -l wins").isEqualTo(70);
        assertThat(options.config().maxMessageSize()).isEqualTo(8192);
        assertThat(options.config().listen()).isEqualTo(ServiceAddress.parse("tcp:0.0.0.0:7300"));
        assertThat(options.config().logDir()).isEqualTo(Path.of("/var/log/x"));
        assertThat(options.config().pluginPath()).isEqualTo("/a;/b");
        assertThat(options.httpPort()).hasValue(7301);
        assertThat(options.httpHost()).isEqualTo("0.0.0.0");
        assertThat(options.config().security().authKeys()).isEqualTo(Path.of("/etc/urom/keys"));
    }

    /** Every option of {@code urom daemon} with a value other than its default. */
    private static final List<String> EVERY_OPTION = List.of(
            "-l 60",
            "--sdk-log-level 50",
            "-m 8192",
            "--max-workers 32",
            "--listen tcp:127.0.0.1:7400",
            "--log-dir /var/log/x",
            "--log-file-size 8192",
            "--log-file-count 3",
            "--worker-log-count 7",
            "--worker-log-max-age 2h",
            "--worker-jvm-option=-Xmx1g",
            "--http-port 7301",
            "--http-host 0.0.0.0",
            "--auth-keys /etc/urom/keys",
            "--insecure-tcp",
            "--socket-group urom",
            "--worker-user nobody",
            "--worker-uid-range 5000-5999",
            "--dumpable-workers",
            "--worker-groups 4242,4243",
            "--worker-env-allow A_*,B_*",
            "--max-workers-per-principal 4",
            "--max-connections 100",
            "--max-connections-per-principal 10",
            "--max-inflight 64",
            "--handshake-timeout-ms 900",
            "--allow-insecure-plugin-dirs");

    @Test
    void everyOptionReachesTheConfiguration() {
        DaemonOptions options = DaemonOptions.parse(String.join(" ", EVERY_OPTION), "/a");
        DaemonConfig config = options.config();
        DaemonSecurity security = config.security();

        assertThat(config.logLevel()).isEqualTo(60);
        assertThat(config.sdkLogLevel()).isEqualTo(50);
        assertThat(config.maxMessageSize()).isEqualTo(8192);
        assertThat(config.maxWorkers()).isEqualTo(32);
        assertThat(config.listen()).isEqualTo(ServiceAddress.tcp("127.0.0.1", 7400));
        assertThat(config.logDir()).isEqualTo(Path.of("/var/log/x"));
        assertThat(config.logRolling()).isEqualTo(new LogRolling(8192, 3));
        assertThat(config.workerLogRetention()).isEqualTo(new WorkerLogRetention(7, Duration.ofHours(2)));
        assertThat(config.workerJvmOptions()).endsWith("-Xmx1g");
        assertThat(options.httpPort()).hasValue(7301);
        assertThat(options.httpHost()).isEqualTo("0.0.0.0");
        assertThat(security.authKeys()).isEqualTo(Path.of("/etc/urom/keys"));
        assertThat(security.insecureTcp()).isTrue();
        assertThat(security.socketGroup()).isEqualTo("urom");
        assertThat(security.workerUser()).isEqualTo("nobody");
        assertThat(security.workerUidRange()).isEqualTo(new UidRange(5000, 5999));
        assertThat(security.dumpableWorkers()).isTrue();
        assertThat(security.workerGroups()).containsExactly("4242", "4243");
        assertThat(security.workerEnvAllow()).containsExactly("A_*", "B_*");
        assertThat(security.maxWorkersPerPrincipal()).isEqualTo(4);
        assertThat(security.maxConnections()).isEqualTo(100);
        assertThat(security.maxConnectionsPerPrincipal()).isEqualTo(10);
        assertThat(security.maxInflight()).isEqualTo(64);
        assertThat(security.handshakeTimeout()).isEqualTo(Duration.ofMillis(900));
        assertThat(security.allowInsecurePluginDirs()).isTrue();
    }

    @Test
    void theListOfEveryOptionHoldsEachOptionOfTheCommand() {
        List<String> declared = new CommandLine(new DaemonCommand(new Environment("", null)))
                .getCommandSpec().options().stream()
                        .map(OptionSpec::shortestName)
                        .toList();
        List<String> given =
                EVERY_OPTION.stream().map(option -> option.split("[ =]")[0]).toList();

        assertThat(given)
                .as("a new option of urom daemon goes into EVERY_OPTION and everyOptionReachesTheConfiguration")
                .containsExactlyInAnyOrderElementsOf(declared);
    }

    @Test
    void aTcpListenWithoutKeysOrInsecureTcpIsRefusedAsTheDaemonWouldRefuseIt() {
        assertThatThrownBy(() -> DaemonOptions.parse("--listen tcp:0.0.0.0:7300", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "--listen tcp:0.0.0.0:7300 (TCP) needs --auth-keys DIR (one key file per principal; urom keygen writes one),"
                                + " or --insecure-tcp to let anyone who reaches the port in");
        assertThat(DaemonOptions.parse("--listen tcp:0.0.0.0:7300 --insecure-tcp", "")
                        .config()
                        .security()
                        .insecureTcp())
                .isTrue();
    }

    @Test
    void logRollingTakesTheSizeAndTheCountAndDefaultsTheOneNotGiven() {
        assertThat(DaemonOptions.parse("--log-file-size 1048576 --log-file-count 3", "")
                        .config()
                        .logRolling())
                .isEqualTo(new LogRolling(1048576, 3));
        assertThat(DaemonOptions.parse("--log-file-count 9", "").config().logRolling())
                .isEqualTo(new LogRolling(10 << 20, 9));
        assertThat(DaemonOptions.parse("--log-file-size=8192", "").config().logRolling())
                .isEqualTo(new LogRolling(8192, 5));
        assertThat(DaemonOptions.parse("-l 60", "").config().logRolling()).isEqualTo(LogRolling.DEFAULT);
    }

    @Test
    void aBadLogRollingIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("--log-file-size 100", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-file-size 100 is below the minimum of 4096 bytes");
        assertThatThrownBy(() -> DaemonOptions.parse("--log-file-count 1", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-file-count 1 is not between 2 and 100 (the current file and the rolled ones)");
        assertThatThrownBy(() -> DaemonOptions.parse("--log-file-size 10M", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid value for option '--log-file-size': '10M' is not a long");
    }

    @Test
    void workerLogRetentionTakesTheCountAndTheAgeAndDefaultsTheOneNotGiven() {
        assertThat(DaemonOptions.parse("--worker-log-count 8 --worker-log-max-age 12h", "")
                        .config()
                        .workerLogRetention())
                .isEqualTo(new WorkerLogRetention(8, Duration.ofHours(12)));
        assertThat(DaemonOptions.parse("--worker-log-count=0", "").config().workerLogRetention())
                .isEqualTo(new WorkerLogRetention(0, Duration.ofDays(7)));
        assertThat(DaemonOptions.parse("--worker-log-max-age 600", "").config().workerLogRetention())
                .isEqualTo(new WorkerLogRetention(64, Duration.ofMinutes(10)));
        assertThat(DaemonOptions.parse("-l 60", "").config().workerLogRetention())
                .isEqualTo(WorkerLogRetention.DEFAULT);
    }

    @Test
    void aBadWorkerLogRetentionIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-count -1", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--worker-log-count -1 is not between 0 and 100000");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-count many", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Invalid value for option '--worker-log-count': 'many' is not an int");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-max-age 2w", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--worker-log-max-age '2w' is not a duration (N seconds, or Ns, Nm, Nh, Nd)");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-max-age 0", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--worker-log-max-age 0s is not positive");
    }

    @Test
    void workerJvmOptionsComeAfterTheDefaultsInTheirOrder() {
        assertThat(DaemonOptions.parse("--worker-jvm-option=-Xmx24m --worker-jvm-option -Dx=y", "")
                        .config()
                        .workerJvmOptions())
                .containsExactlyElementsOf(
                        concat(DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS, List.of("-Xmx24m", "-Dx=y")));
        assertThat(DaemonOptions.parse("-l 60", "").config().workerJvmOptions())
                .isEqualTo(DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS);
    }

    @Test
    void aWorkerJvmOptionOtherThanXOrDIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-jvm-option=-javaagent:/tmp/a.jar", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "worker JVM option '-javaagent:/tmp/a.jar' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-jvm-option=-X" + "m".repeat(255), ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 256 characters");
    }

    private static List<String> concat(List<String> first, List<String> second) {
        return java.util.stream.Stream.concat(first.stream(), second.stream()).toList();
    }

    @Test
    void withoutAnHttpPortTheEndpointIsOffOnLocalhost() {
        DaemonOptions options = DaemonOptions.parse("-l 60", "");

        assertThat(options.httpPort()).isEmpty();
        assertThat(options.httpHost()).isEqualTo("127.0.0.1");
    }

    @Test
    void anOptionTheDaemonLacksOrAValueItRefusesIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("-l 60 --verbose 1", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Unknown options: '--verbose', '1'");
        assertThatThrownBy(() -> DaemonOptions.parse("-m 16", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--max-msg-size 16 is below the minimum of ");
        assertThatThrownBy(() -> DaemonOptions.parse("--http-port 70000", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--http-port 70000 is not a port (0..65535)");
        assertThatThrownBy(() -> DaemonOptions.parse("-m", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Missing required parameter for option '--max-msg-size'");
    }
}
