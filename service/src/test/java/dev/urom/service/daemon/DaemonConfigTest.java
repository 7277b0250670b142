// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.service.logging.LogLevels;
import dev.urom.service.logging.LogRolling;
import dev.urom.service.logging.WorkerLogRetention;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class DaemonConfigTest {
    private final DaemonConfig defaults = DaemonConfig.defaults();

    @Test
    void defaultsAreTheDocumentedOnes() {
        assertThat(defaults.listen()).isEqualTo(ServiceAddress.defaultListen());
        assertThat(defaults.logLevel()).isEqualTo(50);
        assertThat(defaults.sdkLogLevel()).isEqualTo(40);
        assertThat(defaults.maxMessageSize()).isEqualTo(4096);
        assertThat(defaults.maxWorkers()).isEqualTo(64);
        assertThat(defaults.logDir()).isEqualTo(Path.of("/var/log/doca/urom"));
        assertThat(defaults.pluginPath()).isEqualTo(System.getenv().getOrDefault("UROM_PLUGIN_PATH", ""));
        assertThat(defaults.workerIdleTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.workerStartTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(defaults.workerJvmOptions()).containsExactly("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
                "-XX:+UnlockDiagnosticVMOptions", "-XX:ArchiveRelocationMode=0", "-Xms8m", "-Xmn4m", "-Xmx512m");
        assertThat(defaults.workerMainClass()).isEqualTo("dev.urom.service.worker.WorkerMain");
        assertThat(defaults.logRolling()).isEqualTo(new LogRolling(10 << 20, 5));
        assertThat(defaults.workerLogRetention()).isEqualTo(WorkerLogRetention.DEFAULT);
    }

    @Test
    void withersChangeOneSetting() {
        DaemonConfig changed = defaults.withMaxWorkers(8).withLogLevel(70).withPluginPath(null).withLogDir(Path.of("logs"));
        assertThat(changed.maxWorkers()).isEqualTo(8);
        assertThat(changed.logLevel()).isEqualTo(70);
        assertThat(changed.pluginPath()).isEmpty();
        assertThat(changed.logDir()).isEqualTo(Path.of("logs").toAbsolutePath());
        assertThat(changed.maxMessageSize()).isEqualTo(defaults.maxMessageSize());
        DaemonConfig rolled = changed.withLogRolling(new LogRolling(1 << 20, 3));
        assertThat(rolled.logRolling()).isEqualTo(new LogRolling(1 << 20, 3));
        assertThat(rolled.withMaxWorkers(16).logRolling()).as("the other withers keep it").isEqualTo(rolled.logRolling());
        assertThat(rolled.withLogRolling(LogRolling.DEFAULT).maxWorkers()).isEqualTo(8);
    }

    @Test
    void badSettingsAreRefusedWithOneLine() {
        assertRefused(() -> defaults.withMaxWorkers(6), "--max-workers 6 is not a power of two");
        assertRefused(() -> defaults.withMaxWorkers(0), "--max-workers 0 is not a power of two");
        assertRefused(() -> defaults.withMaxWorkers(-8), "--max-workers -8 is not a power of two");
        assertRefused(() -> defaults.withMaxWorkers(1 << 17), "--max-workers 131072 is over the maximum of 65536");
        assertRefused(() -> defaults.withLogLevel(45), "--log-level 45 is not one of " + LogLevels.ACCEPTED);
        assertRefused(() -> defaults.withSdkLogLevel(80), "--sdk-log-level 80 is not one of " + LogLevels.ACCEPTED);
        assertRefused(() -> defaults.withMaxMessageSize(87),
                "--max-msg-size 87 is below the minimum of 88 bytes (64 bytes of payload + the 24-byte command header)");
        assertRefused(() -> defaults.withMaxMessageSize((16 << 20) + 1), "--max-msg-size 16777217 is over the maximum of 16777216 bytes");
        assertRefused(() -> defaults.withListen(null), "listen address is missing");
        assertRefused(() -> defaults.withLogDir(null), "log directory is missing");
        assertRefused(() -> defaults.withPluginPath("/a;/b\0c"), "UROM_PLUGIN_PATH entry 2 '/b\\0c' is not a valid path: Nul character not allowed");
        assertRefused(() -> defaults.withWorkerStartTimeout(Duration.ZERO), "worker start timeout 0 ms is not positive");
        assertRefused(() -> defaults.withWorkerIdleTimeout(Duration.ofSeconds(-1)), "worker idle timeout -1000 ms is not positive");
        assertRefused(() -> defaults.withWorkerIdleTimeout(null), "worker idle timeout is missing");
        assertRefused(() -> defaults.withWorkerJvmOptions(Arrays.asList("-Xmx64m", " ")), "worker JVM options [-Xmx64m,  ] hold an empty option");
        assertRefused(() -> defaults.withWorkerJvmOptions(List.of("-Xmx64m", "-cp")), "worker JVM option '-cp' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertRefused(() -> defaults.withWorkerJvmOptions(List.of("-Dname=a b")), "worker JVM option '-Dname=a b' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertRefused(() -> defaults.withWorkerJvmOptions(List.of("-X\nfake")), "worker JVM option '-X fake' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertRefused(() -> defaults.withWorkerMainClass("a b"), "worker main class 'a b' is not a class name");
        assertRefused(() -> defaults.withLogRolling(null), "log rolling is missing");
        assertThat(defaults.withMaxMessageSize(88).maxMessageSize()).isEqualTo(88);
        assertThat(defaults.withMaxWorkers(1).maxWorkers()).isEqualTo(1);
    }

    @Test
    void serviceArgsComeBeforeTheCommandLine() {
        assertThat(DaemonConfig.withServiceArgs("  -l 60\t -m  4096\n", List.of("--max-workers", "8")))
                .containsExactly("-l", "60", "-m", "4096", "--max-workers", "8");
        assertThat(DaemonConfig.withServiceArgs(null, List.of("-l", "70"))).containsExactly("-l", "70");
        assertThat(DaemonConfig.withServiceArgs("   ", List.of())).isEmpty();
        assertThat(DaemonConfig.withServiceArgs("--sdk-log-level 60", List.of())).containsExactly("--sdk-log-level", "60");
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}
