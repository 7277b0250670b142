// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.urom.cli.doctor.Check;
import dev.urom.cli.doctor.CheckResult;
import dev.urom.cli.doctor.HugepagesCheck;
import dev.urom.cli.doctor.HugetlbfsCheck;
import dev.urom.cli.doctor.JavaVersionCheck;
import dev.urom.cli.doctor.ListenAddressCheck;
import dev.urom.cli.doctor.LogDirectoryCheck;
import dev.urom.cli.doctor.PluginDirectoriesCheck;
import dev.urom.cli.doctor.PluginProbeCheck;
import dev.urom.wire.ServiceAddress;
import dev.urom.service.daemon.DaemonConfig;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom doctor [--json] [--sys-root DIR] [--log-dir DIR] [--listen ADDR]}: checks what the
 * daemon needs on this machine and prints, for each check, ok or FAIL with what is wrong and what to
 * do. Exit status 0 when every check passes, 1 otherwise.
 */
@Command(name = "doctor", description = "Check this machine for what the daemon needs: hugepages, hugetlbfs, plugins, log directory, listen address, Java.")
final class DoctorCommand implements Callable<Integer> {
    /** How long a process on the listen address has to answer the UROM handshake. */
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);

    @Spec CommandSpec spec;

    @Option(names = "--json", description = "Print one JSON document: {\"ok\", \"checks\": [{\"name\", \"ok\", \"detail\", \"advice\"}]}.")
    boolean json;

    @Option(names = "--sys-root", paramLabel = "DIR", description = "Read sys/... and proc/mounts under DIR (default /).")
    Path sysRoot = Path.of("/");

    @Option(names = "--log-dir", paramLabel = "DIR", description = "The daemon's log directory (default /var/log/doca/urom).")
    Path logDir = DaemonConfig.DEFAULT_LOG_DIR;

    @Option(names = "--listen", paramLabel = "ADDR", description = "The daemon's listen address, unix:PATH or tcp:HOST:PORT (default: the daemon's).")
    String listen;

    private final Environment environment;

    DoctorCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() throws Exception {
        List<CheckResult> results = new ArrayList<>();
        for (Check check : checks()) {
            results.add(check.run());
        }
        boolean ok = results.stream().allMatch(CheckResult::ok);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(toJson(ok, results));
        } else {
            print(results, out);
        }
        return ok ? 0 : Main.FAILED;
    }

    private List<Check> checks() {
        ServiceAddress address;
        try {
            address = listen == null ? ServiceAddress.defaultListen() : ServiceAddress.parse(listen);
        } catch (IllegalArgumentException e) {
            throw new CliFailure("--listen " + listen + ": " + e.getMessage());
        }
        return List.of(
                new HugepagesCheck(sysRoot),
                new HugetlbfsCheck(sysRoot),
                new PluginDirectoriesCheck(environment.uromPluginPath()),
                new PluginProbeCheck(environment.uromPluginPath()),
                new LogDirectoryCheck(logDir),
                new ListenAddressCheck(address, HANDSHAKE_TIMEOUT),
                new JavaVersionCheck(Runtime.version()));
    }

    private static void print(List<CheckResult> results, PrintWriter out) {
        int failed = 0;
        for (CheckResult result : results) {
            out.printf("%-4s  %s: %s%n", result.ok() ? "ok" : "FAIL", result.name(), result.detail());
            if (!result.ok()) {
                out.println("      what to do: " + result.advice());
                failed++;
            }
        }
        out.println(failed == 0 ? "all " + results.size() + " checks passed" : failed + " of " + results.size() + " checks failed");
    }

    static String toJson(boolean ok, List<CheckResult> results) throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("ok", ok);
        ArrayNode checks = root.putArray("checks");
        for (CheckResult result : results) {
            checks.addObject()
                    .put("name", result.name())
                    .put("ok", result.ok())
                    .put("detail", result.detail())
                    .put("advice", result.advice());
        }
        return mapper.writeValueAsString(root);
    }
}
