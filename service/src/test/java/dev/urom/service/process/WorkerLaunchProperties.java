// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.urom.framework.worker.PluginSpec;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** The worker's command line as a codec: every launch reads back equal, and what is not a launch is one line naming the option. */
class WorkerLaunchProperties {
    private static final List<String> OPTIONS = List.of(
            "--worker-id",
            "--gid",
            "--listen",
            "--listen-fd",
            "--daemon-fd",
            "--log-level",
            "--sdk-log-level",
            "--max-msg-size",
            "--cpus",
            "--idle-timeout-ms",
            "--max-inflight",
            "--max-host-connections",
            "--handshake-timeout-ms",
            "--dumpable");
    private static final List<String> NUMERIC_OPTIONS = List.of(
            "--worker-id",
            "--gid",
            "--daemon-fd",
            "--max-msg-size",
            "--idle-timeout-ms",
            "--max-inflight",
            "--max-host-connections",
            "--handshake-timeout-ms");

    @Property
    void everyLaunchReadsBackEqual(@ForAll("launches") WorkerLaunch launch) {
        assertThat(WorkerLaunch.fromArgv(launch.toArgv().toArray(String[]::new)))
                .isEqualTo(launch);
    }

    @Property
    void thePluginsComeLastSoThatPsShowsThem(@ForAll("launches") WorkerLaunch launch) {
        List<String> argv = launch.toArgv();

        assertThat(argv.subList(argv.size() - launch.plugins().size(), argv.size()))
                .containsExactlyElementsOf(
                        launch.plugins().stream().map(PluginSpec::toString).toList());
    }

    @Property
    void anOptionGivenAfterAnEqualsSignReadsTheSame(@ForAll("launches") WorkerLaunch launch) {
        List<String> argv = launch.toArgv();
        List<String> joined = new ArrayList<>();
        for (int i = 0; i < argv.size(); i++) {
            joined.add(argv.get(i).startsWith("--") ? argv.get(i) + "=" + argv.get(++i) : argv.get(i));
        }

        assertThat(WorkerLaunch.fromArgv(joined.toArray(String[]::new))).isEqualTo(launch);
    }

    @Property
    void anUnknownOptionIsNamed(@ForAll("launches") WorkerLaunch launch, @ForAll("unknownOptions") String option) {
        List<String> argv = new ArrayList<>(launch.toArgv());
        argv.add(0, option);
        argv.add(1, "1");

        assertThatThrownBy(() -> WorkerLaunch.fromArgv(argv.toArray(String[]::new)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown option " + option);
    }

    @Property
    void aBadNumberIsOneLineNamingItsOption(
            @ForAll("launches") WorkerLaunch launch,
            @ForAll("numericOptions") String option,
            @ForAll("badNumbers") String value) {
        List<String> argv = new ArrayList<>(launch.toArgv());
        argv.add(0, option);
        argv.add(1, value);

        assertThatThrownBy(() -> WorkerLaunch.fromArgv(argv.toArray(String[]::new)))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .startsWith("option " + option)
                        .doesNotContain("\n"));
    }

    @Property
    void aMissingValueIsNamed(@ForAll("launches") WorkerLaunch launch, @ForAll("options") String option) {
        List<String> argv = new ArrayList<>(launch.toArgv());
        argv.removeAll(launch.plugins().stream().map(PluginSpec::toString).toList());
        argv.add(option);

        assertThatThrownBy(() -> WorkerLaunch.fromArgv(argv.toArray(String[]::new)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("option " + option + " needs a value");
    }

    @Property(tries = 500)
    void anyArgvIsReadOrRefusedInOneLine(@ForAll("hostileArgv") List<String> argv) {
        Throwable thrown = catchThrowable(() -> WorkerLaunch.fromArgv(argv.toArray(String[]::new)));

        if (thrown != null) {
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
            assertThat(thrown.getMessage()).isNotBlank().doesNotContain("\n");
        }
    }

    @Provide
    Arbitrary<WorkerLaunch> launches() {
        Arbitrary<ServiceAddress> listen = Arbitraries.oneOf(
                Arbitraries.strings()
                        .withCharRange('a', 'z')
                        .ofMinLength(1)
                        .ofMaxLength(20)
                        .map(n -> ServiceAddress.parse("unix:/run/" + n + ".sock")),
                Arbitraries.integers().between(0, 65535).map(port -> ServiceAddress.tcp("10.1.2.3", port)),
                Arbitraries.just(null));
        Arbitrary<BitSet> cpus = Arbitraries.integers()
                .between(0, 1023)
                .set()
                .ofMaxSize(6)
                .map(set -> {
                    BitSet bits = new BitSet();
                    set.forEach(bits::set);
                    return bits;
                });
        Arbitrary<List<PluginSpec>> plugins = Arbitraries.integers()
                .between(0, 63)
                .set()
                .ofMaxSize(4)
                .map(ids -> ids.stream()
                        .map(id ->
                                new PluginSpec(Path.of("/plugins/p" + id + (id % 2 == 0 ? ".so" : ".jar")), 1L << id))
                        .toList());
        Arbitrary<Integer> levels = Arbitraries.of(10, 20, 30, 40, 50, 60, 70);
        return Builders.withBuilder(LaunchBuilder::new)
                .use(Arbitraries.longs())
                .inSetter((b, v) -> b.workerId = v)
                .use(Arbitraries.longs())
                .inSetter((b, v) -> b.gid = v)
                .use(listen)
                .inSetter((b, v) -> b.listen = v)
                .use(Arbitraries.integers().between(0, 999_999_999))
                .inSetter((b, v) -> b.daemonFd = v)
                .use(levels)
                .inSetter((b, v) -> b.logLevel = v)
                .use(levels)
                .inSetter((b, v) -> b.sdkLogLevel = v)
                .use(Arbitraries.integers().between(24, WorkerLaunch.MAX_MESSAGE_SIZE_LIMIT))
                .inSetter((b, v) -> b.maxMessageSize = v)
                .use(cpus)
                .inSetter((b, v) -> b.cpus = v)
                .use(Arbitraries.longs().between(1, Long.MAX_VALUE))
                .inSetter((b, v) -> b.idleTimeoutMs = v)
                .use(Arbitraries.integers().between(1, 1 << 20))
                .inSetter((b, v) -> b.maxInflight = v)
                .use(Arbitraries.integers().between(1, 1 << 16))
                .inSetter((b, v) -> b.maxHostConnections = v)
                .use(Arbitraries.longs().between(1, Long.MAX_VALUE))
                .inSetter((b, v) -> b.handshakeTimeoutMs = v)
                .use(Arbitraries.of(true, false))
                .inSetter((b, v) -> b.dumpable = v)
                .use(plugins)
                .inSetter((b, v) -> b.plugins = v)
                .build(LaunchBuilder::build);
    }

    @Provide
    Arbitrary<String> options() {
        return Arbitraries.of(OPTIONS);
    }

    @Provide
    Arbitrary<String> numericOptions() {
        return Arbitraries.of(NUMERIC_OPTIONS);
    }

    @Provide
    Arbitrary<String> unknownOptions() {
        return Arbitraries.strings()
                .withCharRange('a', 'z')
                .withChars('-')
                .ofMinLength(1)
                .ofMaxLength(20)
                .map(s -> "--" + s)
                .filter(s -> !OPTIONS.contains(s) && !s.contains("="));
    }

    @Provide
    Arbitrary<String> badNumbers() {
        return Arbitraries.oneOf(
                Arbitraries.of("", "-1", "0x", "+5", "1e3", "twelve", " 1", "99999999999999999999999", "\u0661"),
                Arbitraries.strings().withChars("xyz-+. \n").ofMinLength(1).ofMaxLength(8));
    }

    @Provide
    Arbitrary<List<String>> hostileArgv() {
        Arbitrary<String> word = Arbitraries.oneOf(
                Arbitraries.of(OPTIONS),
                Arbitraries.of(
                        "0",
                        "1",
                        "-1",
                        "0x10",
                        "unix:/a",
                        "tcp:h:1",
                        "/p/a.so:1",
                        "a.so:1",
                        "/p/a.so:x",
                        "true",
                        "",
                        "=",
                        "--"),
                Arbitraries.strings().all().ofMaxLength(12),
                Arbitraries.of(OPTIONS).map(o -> o + "=" + "7"));
        return word.list().ofMaxSize(12);
    }

    /** The launch's components, set one by one from the generators. */
    static final class LaunchBuilder {
        long workerId;
        long gid;
        ServiceAddress listen;
        int daemonFd;
        int logLevel;
        int sdkLogLevel;
        int maxMessageSize;
        BitSet cpus;
        long idleTimeoutMs;
        int maxInflight;
        int maxHostConnections;
        long handshakeTimeoutMs;
        boolean dumpable;
        List<PluginSpec> plugins;

        WorkerLaunch build() {
            return new WorkerLaunch(
                    workerId,
                    gid,
                    listen,
                    listen == null ? 0 : -1,
                    daemonFd,
                    logLevel,
                    sdkLogLevel,
                    maxMessageSize,
                    cpus,
                    idleTimeoutMs,
                    maxInflight,
                    maxHostConnections,
                    handshakeTimeoutMs,
                    dumpable,
                    plugins);
        }
    }

    @Property
    void aNegativeCountIsRefused(@ForAll @IntRange(min = -1000, max = 0) int count) {
        assertThatThrownBy(() -> WorkerLaunch.fromArgv(
                        "--worker-id", "1", "--listen-fd", "0", "--max-host-connections", Integer.toString(count)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("option --max-host-connections " + count + " is not positive");
    }
}
