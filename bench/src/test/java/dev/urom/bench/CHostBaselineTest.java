// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The C host's result line and service file, and the program the build compiled, without a daemon. */
@Timeout(60)
class CHostBaselineTest {

    @Test
    void resultLineIsParsedOrRefusedByName() {
        CHostBaseline.Line result =
                CHostBaseline.parse("c_host plugin=worker_graph wait=event rounds=5 throughput=10 in_flight=16"
                        + " p50_ns=12000 p99_ns=30000 mean_ns=14000 ops_per_s=81234 cpu_ns_per_op=4100");

        assertThat(result).isEqualTo(new CHostBaseline.Line(12_000, 30_000, 81_234));
        assertThatThrownBy(() -> CHostBaseline.parse("latency rounds=5"))
                .hasMessage("c_host_loopback c_host printed 'latency rounds=5', not a c_host result");
        assertThatThrownBy(() -> CHostBaseline.parse("c_host p50_ns=1 p99_ns=2"))
                .hasMessage("c_host_loopback printed no ops_per_s");
        assertThatThrownBy(() -> CHostBaseline.parse("c_host p50_ns=fast"))
                .hasMessage("c_host_loopback printed p50_ns=fast, not a number");
    }

    @Test
    void serviceFileLineNamesTheDaemonOfTheDevice() {
        assertThat(CHostBaseline.serviceLine("hostA", ServiceAddress.parse("unix:/run/urom/daemon.sock")))
                .isEqualTo("hostA dpu unix:/run/urom/daemon.sock 0000:0b:00.0 urom0:1");
        assertThat(CHostBaseline.serviceLine("hostA", ServiceAddress.tcp("::1", 7301)))
                .isEqualTo("hostA dpu [::1]:7301 0000:0b:00.0 urom0:1");
        assertThatThrownBy(
                        () -> CHostBaseline.serviceLine("hostA", ServiceAddress.parse("unix:/tmp/with space/d.sock")))
                .hasMessageStartingWith("cannot write a DOCA_UROM_SERVICE_FILE line for 'unix:/tmp/with space/d.sock'");
    }

    @Test
    void waitModesAreTheProgramsArguments() {
        assertThat(CHostBaseline.Wait.parse("spin")).isEqualTo(CHostBaseline.Wait.SPIN);
        assertThat(CHostBaseline.Wait.EVENT.argument()).isEqualTo("event");
    }

    @Test
    void programWithoutItsDeviceSaysSoInOneLine(@TempDir Path dir) throws Exception {
        Path services = Files.writeString(
                dir.resolve("services"),
                CHostBaseline.hostname() + " dpu unix:" + dir.resolve("d.sock") + " 0000:3b:00.0 mlx5_9:1\n");

        Ran ran = runProgram(services, CHostBaseline.PCI_ADDRESS, "worker_graph", "10", "10", "16");

        assertThat(ran.status()).isEqualTo(1);
        assertThat(ran.stdout()).isEmpty();
        assertThat(ran.stderr())
                .singleElement()
                .asString()
                .isEqualTo(
                        "c_host_loopback: no device 0000:0b:00.0 among the 1 of DOCA_UROM_SERVICE_FILE: 0000:3b:00.0 (mlx5_9)");
    }

    @Test
    void programWithoutAnyDeviceOfThisHostSaysWhy(@TempDir Path dir) throws Exception {
        Path services =
                Files.writeString(dir.resolve("services"), "some-other-host dpu elsewhere 0000:0b:00.0 urom0:1\n");

        Ran ran = runProgram(services, "urom0", "worker_graph", "10", "10", "16");

        assertThat(ran.status()).isEqualTo(1);
        assertThat(ran.stderr())
                .singleElement()
                .asString()
                .startsWith("c_host_loopback: no device urom0: DOCA_UROM_SERVICE_FILE gives no devices for this host");
    }

    @Test
    void programRefusesBadArgumentsInOneLine(@TempDir Path dir) throws Exception {
        Path services = Files.writeString(dir.resolve("services"), "");

        for (List<String> args : List.<List<String>>of(
                List.of(),
                List.of("urom0", "worker_graph", "10", "10"),
                List.of("urom0", "worker_graph", "ten", "10", "16"),
                List.of("urom0", "worker_graph", "10", "10", "0"),
                List.of("urom0", "worker_graph", "10", "10", "16", "busy"))) {
            Ran ran = runProgram(services, args.toArray(String[]::new));

            assertThat(ran.status()).as("status for %s", args).isEqualTo(2);
            assertThat(ran.stderr())
                    .as("stderr for %s", args)
                    .singleElement()
                    .asString()
                    .startsWith("c_host_loopback: ")
                    .contains("; usage: c_host_loopback DEVICE PLUGIN ROUNDS THROUGHPUT IN_FLIGHT");
        }
    }

    @Test
    void aDaemonThatIsNotThereFailsTheRunWithTheProgramsLine(@TempDir Path dir) throws Exception {
        try (ChildProcesses children = new ChildProcesses()) {
            CHostBaseline baseline = new CHostBaseline(CHostBaseline.locateProgram(), children);

            assertThatThrownBy(() -> baseline.run(
                            ServiceAddress.parse("unix:" + dir.resolve("nobody.sock")),
                            new CHostBaseline.DaemonWorkers() {
                                @Override
                                public void awaitNone() {}

                                @Override
                                public long onlyPid() {
                                    throw new AssertionError("the program asked for its worker before it had one");
                                }
                            },
                            dir,
                            Map.of("native", "worker_graph"),
                            10,
                            10,
                            16,
                            CHostBaseline.Wait.EVENT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith(
                            "c_host_loopback worker_graph ended with status 1: the service's start (doca_ctx_start): ")
                    .hasMessageContaining("nobody.sock");
        }
        assertThat(dir.resolve("doca_urom_services"))
                .content(StandardCharsets.US_ASCII)
                .contains(" dpu unix:" + dir.resolve("nobody.sock") + " 0000:0b:00.0 urom0:1");
    }

    private record Ran(int status, String stdout, List<String> stderr) {}

    private static Ran runProgram(Path serviceFile, String... args) throws IOException, InterruptedException {
        List<String> command =
                new java.util.ArrayList<>(List.of(CHostBaseline.locateProgram().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put(CHostBaseline.SERVICE_FILE_ENV, serviceFile.toString());
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] err = process.getErrorStream().readAllBytes();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int status = process.waitFor();
        String errors = new String(err, StandardCharsets.UTF_8);
        return new Ran(status, out, errors.isEmpty() ? List.of() : List.of(errors.split("\n")));
    }
}
