// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.worker.PluginSpec;
import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class WorkerLaunchTest {
    private static final List<String> REQUIRED = List.of("--worker-id", "7", "--listen", "unix:/run/w.sock");

    private static WorkerLaunch parse(List<String> extra) {
        List<String> args = new ArrayList<>(REQUIRED);
        args.addAll(extra);
        return WorkerLaunch.fromArgv(args.toArray(String[]::new));
    }

    @Test
    void readsTheDaemonsCommandLine() {
        WorkerLaunch a = WorkerLaunch.fromArgv(
                "--worker-id",
                "0xffffffffffffffff",
                "--gid",
                "12",
                "--listen=tcp:10.0.0.1:0",
                "--log-level",
                "60",
                "--sdk-log-level",
                "30",
                "--max-msg-size",
                "8192",
                "--cpus",
                "0,2-3",
                "--idle-timeout-ms",
                "500",
                "--max-inflight",
                "256",
                "--max-host-connections",
                "8",
                "--handshake-timeout-ms",
                "900",
                "/p/a.so:1",
                "/p/b.jar:0x2");
        assertThat(a.workerId()).isEqualTo(-1L);
        assertThat(a.gid()).isEqualTo(12);
        assertThat(a.listen()).isEqualTo(ServiceAddress.tcp("10.0.0.1", 0));
        assertThat(a.listenFd()).isEqualTo(-1);
        assertThat(a.daemonFd()).isZero();
        assertThat(a.maxInflight()).isEqualTo(256);
        assertThat(a.maxHostConnections()).isEqualTo(8);
        assertThat(a.handshakeTimeoutMs()).isEqualTo(900);
        assertThat(a.logLevel()).isEqualTo(60);
        assertThat(a.sdkLogLevel()).isEqualTo(30);
        assertThat(a.maxMessageSize()).isEqualTo(8192);
        assertThat(a.cpus().stream().boxed().toList()).containsExactly(0, 2, 3);
        assertThat(a.idleTimeoutMs()).isEqualTo(500);
        assertThat(a.plugins())
                .containsExactly(new PluginSpec(Path.of("/p/a.so"), 1), new PluginSpec(Path.of("/p/b.jar"), 2));
    }

    @Test
    void appliesDefaults() {
        WorkerLaunch a = parse(List.of());
        assertThat(a.gid()).isZero();
        assertThat(a.logLevel()).isEqualTo(50);
        assertThat(a.sdkLogLevel()).isEqualTo(40);
        assertThat(a.maxMessageSize()).isEqualTo(4096);
        assertThat(a.cpus().isEmpty()).isTrue();
        assertThat(a.idleTimeoutMs()).isEqualTo(30_000);
        assertThat(a.maxInflight()).isEqualTo(WorkerLaunch.DEFAULT_MAX_INFLIGHT);
        assertThat(a.maxHostConnections()).isEqualTo(WorkerLaunch.DEFAULT_MAX_HOST_CONNECTIONS);
        assertThat(a.handshakeTimeoutMs()).isEqualTo(WorkerLaunch.DEFAULT_HANDSHAKE_TIMEOUT_MS);
        assertThat(a.plugins()).isEmpty();
    }

    @Test
    void theLauncherHandsOverTheListeningSocketAndTheDaemonsPipe() {
        WorkerLaunch a = WorkerLaunch.fromArgv("--worker-id", "3", "--listen-fd", "0", "--daemon-fd", "3");
        assertThat(a.listen()).isNull();
        assertThat(a.listenFd()).isZero();
        assertThat(a.daemonFd()).isEqualTo(3);
        assertThatThrownBy(() -> WorkerLaunch.fromArgv("--worker-id", "3", "--listen-fd", "4"))
                .hasMessage("option --listen-fd 4: only 0 (a listening socket inherited as stdin) is supported");
        assertThatThrownBy(() -> WorkerLaunch.fromArgv("--worker-id", "3", "--listen-fd", "0", "--listen", "unix:/a"))
                .hasMessage("options --listen and --listen-fd exclude each other");
        assertThatThrownBy(() -> WorkerLaunch.fromArgv("--worker-id", "3"))
                .hasMessage("option --listen (or --listen-fd) is missing");
        assertThatThrownBy(() -> WorkerLaunch.fromArgv("--worker-id", "3", "--listen-fd", "0", "--daemon-fd", "-1"))
                .hasMessage("option --daemon-fd '-1' is not a file descriptor number");
        assertThatThrownBy(() -> WorkerLaunch.fromArgv("--worker-id", "3", "--listen-fd", "0", "--max-inflight", "0"))
                .hasMessage("option --max-inflight 0 is not positive");
    }

    @Test
    void refusesBadArgumentsWithOneLineNamingThem() {
        assertThatThrownBy(() -> WorkerLaunch.fromArgv("--listen", "unix:/a"))
                .hasMessage("option --worker-id is missing");
        assertThatThrownBy(() -> parse(List.of("--frobnicate", "1"))).hasMessage("unknown option --frobnicate");
        assertThatThrownBy(() -> parse(List.of("--gid"))).hasMessage("option --gid needs a value");
        assertThatThrownBy(() -> parse(List.of("--gid", "-1")))
                .hasMessage("option --gid '-1' is not an unsigned 64-bit number");
        assertThatThrownBy(() -> parse(List.of("--log-level", "55")))
                .hasMessageStartingWith("option --log-level: log level 55 is not one of");
        assertThatThrownBy(() -> parse(List.of("--max-msg-size", "23")))
                .hasMessage("option --max-msg-size 23 is out of range (24..67108864 bytes)");
        assertThatThrownBy(() -> parse(List.of("--cpus", "1,x")))
                .hasMessage("option --cpus '1,x': 'x' is not a CPU number");
        assertThatThrownBy(() -> parse(List.of("--cpus", "3-1")))
                .hasMessage("option --cpus '3-1': range 3-1 runs backwards");
        assertThatThrownBy(() -> parse(List.of("--idle-timeout-ms", "0")))
                .hasMessage("option --idle-timeout-ms 0 is not positive");
        assertThatThrownBy(() -> parse(List.of("relative.so:1")))
                .hasMessageContaining("plugin item 'relative.so:1' is invalid");
        assertThatThrownBy(() -> parse(List.of("/a.so:1", "/b.so:1")))
                .hasMessageContaining("its id 0x1 is already given to '/a.so:1'");
    }

    @Property(tries = 200)
    void toArgsIsReadBackToEqualArguments(
            @ForAll long workerId,
            @ForAll long gid,
            @ForAll @IntRange(min = 24, max = 1 << 20) int maxMessageSize,
            @ForAll @Size(max = 6) List<@IntRange(min = 0, max = 300) Integer> cpus,
            @ForAll @IntRange(min = 1, max = 63) int pluginCount) {
        BitSet cpuSet = new BitSet();
        cpus.forEach(cpuSet::set);
        List<PluginSpec> plugins = new ArrayList<>();
        for (int i = 0; i < pluginCount % 5; i++) {
            plugins.add(
                    new PluginSpec(Path.of("/plugins/p" + i + (i % 2 == 0 ? ".so" : ".jar")), 1L << (pluginCount - i)));
        }
        WorkerLaunch arguments = new WorkerLaunch(
                workerId,
                gid,
                ServiceAddress.parse("unix:/run/urom/worker.sock"),
                -1,
                3,
                70,
                10,
                maxMessageSize,
                cpuSet,
                1234,
                256,
                8,
                900,
                pluginCount % 2 == 0,
                plugins);
        assertThat(WorkerLaunch.fromArgv(arguments.toArgv().toArray(String[]::new)))
                .isEqualTo(arguments);
    }
}
