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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
        assertThat(defaults.workerJvmOptions())
                .containsExactly(
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-Xshare:auto",
                        "-XX:+UnlockDiagnosticVMOptions",
                        "-XX:ArchiveRelocationMode=0",
                        "-Xms8m",
                        "-Xmn4m",
                        "-Xmx512m");
        assertThat(defaults.workerMainClass()).isEqualTo("dev.urom.service.worker.WorkerMain");
        assertThat(defaults.logRolling()).isEqualTo(new LogRolling(10 << 20, 5));
        assertThat(defaults.workerLogRetention()).isEqualTo(WorkerLogRetention.DEFAULT);
    }

    @Test
    void theBuilderChangesOnlyWhatItIsGiven() {
        DaemonConfig changed = defaults.toBuilder()
                .maxWorkers(8)
                .logLevel(70)
                .pluginPath(null)
                .logDir(Path.of("logs"))
                .build();
        assertThat(changed.maxWorkers()).isEqualTo(8);
        assertThat(changed.logLevel()).isEqualTo(70);
        assertThat(changed.pluginPath()).isEmpty();
        assertThat(changed.logDir()).isEqualTo(Path.of("logs").toAbsolutePath());
        assertThat(changed.maxMessageSize()).isEqualTo(defaults.maxMessageSize());
        DaemonConfig rolled =
                changed.toBuilder().logRolling(new LogRolling(1 << 20, 3)).build();
        assertThat(rolled.logRolling()).isEqualTo(new LogRolling(1 << 20, 3));
        assertThat(rolled.toBuilder().maxWorkers(16).build().logRolling())
                .as("the other setters keep it")
                .isEqualTo(rolled.logRolling());
        assertThat(rolled.toBuilder().logRolling(LogRolling.DEFAULT).build().maxWorkers())
                .isEqualTo(8);
    }

    @Test
    void aBuilderHoldsTheDefaultsAndToBuilderHoldsItsConfiguration() {
        DaemonConfig built = DaemonConfig.builder().build();
        DaemonConfig copied = defaults.toBuilder().build();

        for (DaemonConfig config : List.of(built, copied)) {
            assertThat(config)
                    .usingRecursiveComparison()
                    .usingOverriddenEquals()
                    .isEqualTo(defaults);
            assertThat(config.security())
                    .usingRecursiveComparison()
                    .usingOverriddenEquals()
                    .isEqualTo(DaemonSecurity.defaults());
        }
        DaemonConfig custom = DaemonConfig.builder()
                .maxWorkers(4)
                .workerIdleTimeout(Duration.ofSeconds(3))
                .logFileCount(7)
                .workerLogMaxAge(Duration.ofHours(2))
                .security(DaemonSecurity.builder().maxInflight(8).build())
                .build();
        assertThat(custom.toBuilder().build())
                .usingRecursiveComparison()
                .usingOverriddenEquals()
                .isEqualTo(custom);
    }

    @Test
    void eachLogSettingHasASetterOfItsOwnAndTheOtherKeepsItsDefault() {
        DaemonConfig config =
                DaemonConfig.builder().logFileSize(8192).workerLogCount(3).build();

        assertThat(config.logRolling()).isEqualTo(new LogRolling(8192, LogRolling.DEFAULT_MAX_FILES));
        assertThat(config.workerLogRetention())
                .isEqualTo(new WorkerLogRetention(3, WorkerLogRetention.DEFAULT_MAX_AGE));
        assertThat(DaemonConfig.builder()
                        .logFileCount(9)
                        .workerLogMaxAge(Duration.ofMinutes(5))
                        .build())
                .satisfies(
                        c -> assertThat(c.logRolling()).isEqualTo(new LogRolling(LogRolling.DEFAULT_MAX_FILE_BYTES, 9)))
                .satisfies(c -> assertThat(c.workerLogRetention())
                        .isEqualTo(new WorkerLogRetention(64, Duration.ofMinutes(5))));
    }

    @Test
    void addedWorkerJvmOptionsComeAfterThoseHeld() {
        DaemonConfig config = DaemonConfig.builder()
                .addWorkerJvmOptions(List.of("-Xmx1g"))
                .addWorkerJvmOptions(List.of("-Da=b"))
                .build();

        assertThat(config.workerJvmOptions())
                .endsWith("-Xmx512m", "-Xmx1g", "-Da=b")
                .hasSize(DaemonConfig.DEFAULT_WORKER_JVM_OPTIONS.size() + 2);
        DaemonConfig replaced = DaemonConfig.builder()
                .workerJvmOptions(List.of("-Xss1m"))
                .addWorkerJvmOptions(List.of("-Xmx1g"))
                .build();
        assertThat(replaced.workerJvmOptions()).containsExactly("-Xss1m", "-Xmx1g");
    }

    @Test
    void aBuiltConfigurationIsNotChangedByItsBuilderOrByTheListItWasGiven() {
        List<String> jvmOptions = new ArrayList<>(List.of("-Xmx64m"));
        DaemonConfig.Builder builder = DaemonConfig.builder().maxWorkers(8).workerJvmOptions(jvmOptions);
        DaemonConfig config = builder.build();

        builder.maxWorkers(16).logDir(Path.of("elsewhere")).addWorkerJvmOptions(List.of("-Dlater=1"));
        jvmOptions.add("-Dadded=1");

        assertThat(config.maxWorkers()).isEqualTo(8);
        assertThat(config.logDir()).isEqualTo(DaemonConfig.DEFAULT_LOG_DIR);
        assertThat(config.workerJvmOptions()).containsExactly("-Xmx64m");
        assertThatThrownBy(() -> config.workerJvmOptions().add("-Dx=y"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(builder.build().maxWorkers()).as("the builder stays usable").isEqualTo(16);
    }

    @Test
    void badSettingsAreRefusedWithOneLine() {
        assertRefused(b -> b.maxWorkers(6), "--max-workers 6 is not a power of two");
        assertRefused(b -> b.maxWorkers(0), "--max-workers 0 is not a power of two");
        assertRefused(b -> b.maxWorkers(-8), "--max-workers -8 is not a power of two");
        assertRefused(b -> b.maxWorkers(1 << 17), "--max-workers 131072 is over the maximum of 65536");
        assertRefused(b -> b.logLevel(45), "--log-level 45 is not one of " + LogLevels.ACCEPTED);
        assertRefused(b -> b.sdkLogLevel(80), "--sdk-log-level 80 is not one of " + LogLevels.ACCEPTED);
        assertRefused(
                b -> b.maxMessageSize(87),
                "--max-msg-size 87 is below the minimum of 88 bytes (64 bytes of payload + the 24-byte command header)");
        assertRefused(
                b -> b.maxMessageSize((16 << 20) + 1), "--max-msg-size 16777217 is over the maximum of 16777216 bytes");
        assertRefused(b -> b.listen(null), "listen address is missing");
        assertRefused(b -> b.logDir(null), "log directory is missing");
        assertRefused(
                b -> b.pluginPath("/a;/b\0c"),
                "UROM_PLUGIN_PATH entry 2 '/b\\0c' is not a valid path: Nul character not allowed");
        assertRefused(b -> b.workerStartTimeout(Duration.ZERO), "worker start timeout 0 ms is not positive");
        assertRefused(b -> b.workerIdleTimeout(Duration.ofSeconds(-1)), "worker idle timeout -1000 ms is not positive");
        assertRefused(b -> b.workerIdleTimeout(null), "worker idle timeout is missing");
        assertRefused(
                b -> b.workerJvmOptions(Arrays.asList("-Xmx64m", " ")),
                "worker JVM options [-Xmx64m,  ] hold an empty option");
        assertRefused(
                b -> b.workerJvmOptions(List.of("-Xmx64m", "-cp")),
                "worker JVM option '-cp' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertRefused(
                b -> b.workerJvmOptions(List.of("-Dname=a b")),
                "worker JVM option '-Dname=a b' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertRefused(
                b -> b.workerJvmOptions(List.of("-X\nfake")),
                "worker JVM option '-X fake' is not one a worker takes: only -X... and -D... options, at most 256 characters, no spaces");
        assertRefused(b -> b.workerMainClass("a b"), "worker main class 'a b' is not a class name");
        assertRefused(b -> b.logRolling(null), "log rolling is missing");
        assertThat(defaults.toBuilder().maxMessageSize(88).build().maxMessageSize())
                .isEqualTo(88);
        assertThat(defaults.toBuilder().maxWorkers(1).build().maxWorkers()).isEqualTo(1);
    }

    /** One bad value per setter: what the refusal must name. */
    static Stream<Arguments> badValues() {
        return Stream.of(
                refusal("--log-level", b -> b.logLevel(0)),
                refusal("--sdk-log-level", b -> b.sdkLogLevel(71)),
                refusal("--max-msg-size", b -> b.maxMessageSize(0)),
                refusal("--max-workers", b -> b.maxWorkers(3)),
                refusal("listen address", b -> b.listen(null)),
                refusal("log directory", b -> b.logDir(null)),
                refusal("UROM_PLUGIN_PATH", b -> b.pluginPath("a\0")),
                refusal("worker idle timeout", b -> b.workerIdleTimeout(Duration.ZERO)),
                refusal("worker start timeout", b -> b.workerStartTimeout(null)),
                refusal("worker JVM options", b -> b.workerJvmOptions(null)),
                refusal("worker JVM option", b -> b.addWorkerJvmOptions(List.of("-jar"))),
                refusal("worker main class", b -> b.workerMainClass(" ")),
                refusal("--log-file-size", b -> b.logFileSize(4095)),
                refusal("--log-file-count", b -> b.logFileCount(101)),
                refusal("--worker-log-count", b -> b.workerLogCount(-1)),
                refusal("--worker-log-max-age", b -> b.workerLogMaxAge(Duration.ofSeconds(-1))),
                refusal("--worker-log-max-age", b -> b.workerLogMaxAge(null)),
                refusal("log rolling", b -> b.logRolling(null)),
                refusal("worker log retention", b -> b.workerLogRetention(null)),
                refusal("security settings", b -> b.security(null)));
    }

    private static Arguments refusal(String named, Consumer<DaemonConfig.Builder> bad) {
        return Arguments.of(named, bad);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void eachRefusalIsOneLineNamingTheOption(String named, Consumer<DaemonConfig.Builder> bad) {
        DaemonConfig.Builder builder = DaemonConfig.builder();

        assertThatThrownBy(() -> {
                    bad.accept(builder);
                    builder.build();
                })
                .isInstanceOf(IllegalArgumentException.class)
                .message()
                .startsWith(named)
                .doesNotContain("\n");
    }

    @Test
    void serviceArgsComeBeforeTheCommandLine() {
        assertThat(DaemonConfig.withServiceArgs("  -l 60\t -m  4096\n", List.of("--max-workers", "8")))
                .containsExactly("-l", "60", "-m", "4096", "--max-workers", "8");
        assertThat(DaemonConfig.withServiceArgs(null, List.of("-l", "70"))).containsExactly("-l", "70");
        assertThat(DaemonConfig.withServiceArgs("   ", List.of())).isEmpty();
        assertThat(DaemonConfig.withServiceArgs("--sdk-log-level 60", List.of()))
                .containsExactly("--sdk-log-level", "60");
    }

    private static void assertRefused(Consumer<DaemonConfig.Builder> setting, String message) {
        assertThatThrownBy(() -> {
                    DaemonConfig.Builder builder = DaemonConfig.builder();
                    setting.accept(builder);
                    builder.build();
                })
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
