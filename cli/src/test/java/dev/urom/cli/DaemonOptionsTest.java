// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.WorkerLogRetention;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class DaemonOptionsTest {
    @Test
    void serviceArgsAreReadAsUromDaemonReadsThem() {
        DaemonOptions options = DaemonOptions.parse("-l 60  -m 8192 --listen tcp:0.0.0.0:7300 --auth-keys /etc/urom/keys --log-dir=/var/log/x"
                + " --http-port 7301 --http-host 0.0.0.0 -l 70", "/a;/b");

        assertThat(options.config().logLevel()).as("the last -l wins").isEqualTo(70);
        assertThat(options.config().maxMessageSize()).isEqualTo(8192);
        assertThat(options.config().listen()).isEqualTo(ServiceAddress.parse("tcp:0.0.0.0:7300"));
        assertThat(options.config().logDir()).isEqualTo(Path.of("/var/log/x"));
        assertThat(options.config().pluginPath()).isEqualTo("/a;/b");
        assertThat(options.httpPort()).hasValue(7301);
        assertThat(options.httpHost()).isEqualTo("0.0.0.0");
        assertThat(options.config().security().authKeys()).isEqualTo(Path.of("/etc/urom/keys"));
    }

    @Test
    void aTcpListenWithoutKeysOrInsecureTcpIsRefusedAsTheDaemonWouldRefuseIt() {
        assertThatThrownBy(() -> DaemonOptions.parse("--listen tcp:0.0.0.0:7300", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--listen tcp:0.0.0.0:7300 (TCP) needs --auth-keys DIR (one key file per principal; urom keygen writes one),"
                        + " or --insecure-tcp to let anyone who reaches the port in");
        assertThat(DaemonOptions.parse("--listen tcp:0.0.0.0:7300 --insecure-tcp", "").config().security().insecureTcp()).isTrue();
    }

    @Test
    void logRollingTakesTheSizeAndTheCountAndDefaultsTheOneNotGiven() {
        assertThat(DaemonOptions.parse("--log-file-size 1048576 --log-file-count 3", "").config().logRolling())
                .isEqualTo(new LogRolling(1048576, 3));
        assertThat(DaemonOptions.parse("--log-file-count 9", "").config().logRolling()).isEqualTo(new LogRolling(10 << 20, 9));
        assertThat(DaemonOptions.parse("--log-file-size=8192", "").config().logRolling()).isEqualTo(new LogRolling(8192, 5));
        assertThat(DaemonOptions.parse("-l 60", "").config().logRolling()).isEqualTo(LogRolling.DEFAULT);
    }

    @Test
    void aBadLogRollingIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("--log-file-size 100", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--log-file-size 100 is below the minimum of 4096 bytes");
        assertThatThrownBy(() -> DaemonOptions.parse("--log-file-count 1", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--log-file-count 1 is not between 2 and 100 (the current file and the rolled ones)");
        assertThatThrownBy(() -> DaemonOptions.parse("--log-file-size 10M", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Invalid value for option '--log-file-size': '10M' is not a long");
    }

    @Test
    void workerLogRetentionTakesTheCountAndTheAgeAndDefaultsTheOneNotGiven() {
        assertThat(DaemonOptions.parse("--worker-log-count 8 --worker-log-max-age 12h", "").config().workerLogRetention())
                .isEqualTo(new WorkerLogRetention(8, Duration.ofHours(12)));
        assertThat(DaemonOptions.parse("--worker-log-count=0", "").config().workerLogRetention())
                .isEqualTo(new WorkerLogRetention(0, Duration.ofDays(7)));
        assertThat(DaemonOptions.parse("--worker-log-max-age 600", "").config().workerLogRetention())
                .isEqualTo(new WorkerLogRetention(64, Duration.ofMinutes(10)));
        assertThat(DaemonOptions.parse("-l 60", "").config().workerLogRetention()).isEqualTo(WorkerLogRetention.DEFAULT);
    }

    @Test
    void aBadWorkerLogRetentionIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-count -1", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--worker-log-count -1 is not between 0 and 100000");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-count many", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Invalid value for option '--worker-log-count': 'many' is not an int");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-max-age 2w", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--worker-log-max-age '2w' is not a duration (N seconds, or Ns, Nm, Nh, Nd)");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-log-max-age 0", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--worker-log-max-age 0s is not positive");
    }

    @Test
    void workerJvmOptionsComeAfterTheDefaultsInTheirOrder() {
        assertThat(DaemonOptions.parse("--worker-jvm-option=-Xmx24m --worker-jvm-option -Dx=y", "").config().workerJvmOptions())
                .containsExactlyElementsOf(concat(DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS, List.of("-Xmx24m", "-Dx=y")));
        assertThat(DaemonOptions.parse("-l 60", "").config().workerJvmOptions()).isEqualTo(DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS);
    }

    @Test
    void aWorkerJvmOptionOtherThanXOrDIsOneLine() {
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-jvm-option=-javaagent:/tmp/a.jar", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("worker JVM option '-javaagent:/tmp/a.jar' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertThatThrownBy(() -> DaemonOptions.parse("--worker-jvm-option=-X" + "m".repeat(255), ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 256 characters");
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
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Unknown options: '--verbose', '1'");
        assertThatThrownBy(() -> DaemonOptions.parse("-m 16", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("--max-msg-size 16 is below the minimum of ");
        assertThatThrownBy(() -> DaemonOptions.parse("--http-port 70000", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--http-port 70000 is not a port (0..65535)");
        assertThatThrownBy(() -> DaemonOptions.parse("-m", ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("Missing required parameter for option '--max-msg-size'");
    }
}
