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
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.wire.ServiceAddress;
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
 * {@code urom doctor [--json] [--sys-root DIR] [--log-dir DIR] [--listen ADDR] [--auth-keys DIR]
 * [--insecure-tcp]}: checks what the daemon needs on this machine and grades each check: ok; WARN
 * when the daemon serves here but something matters elsewhere (a device deployment's hugepages) or
 * later; FAIL when the daemon would not start or serve here. Prints what was found and, for WARN and
 * FAIL, what to do. Exit status 0 when no check FAILs (WARNs allowed), 1 otherwise.
 */
@Command(
        name = "doctor",
        description =
                "Check this machine for what the daemon needs (plugins, log directory, listen address and keys, Java; hugepages and"
                        + " hugetlbfs for a device deployment) and grade each check ok, WARN or FAIL. Exit status 0 when nothing FAILs, 1 otherwise.")
final class DoctorCommand implements Callable<Integer> {
    /** How long a process on the listen address has to answer the UROM handshake. */
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);

    @Spec
    CommandSpec spec;

    @Option(
            names = "--json",
            description =
                    "Print one JSON document: {\"ok\", \"checks\": [{\"name\", \"grade\" (ok, warn or fail),"
                            + " \"ok\" (not fail), \"detail\", \"advice\" (null when the grade is ok)}]}; \"ok\" is false when a check fails.")
    boolean json;

    @Option(
            names = "--sys-root",
            paramLabel = "DIR",
            description = "Read sys/... and proc/mounts under DIR (default /).")
    Path sysRoot = Path.of("/");

    @Option(
            names = "--log-dir",
            paramLabel = "DIR",
            description =
                    "The daemon's --log-dir (default /var/log/doca/urom); when the daemon cannot use it, it logs to <temp dir>/urom-<user>/log.")
    Path logDir = DaemonConfig.DEFAULT_LOG_DIR;

    @Option(
            names = "--listen",
            paramLabel = "ADDR",
            description =
                    "The daemon's --listen address, unix:PATH or tcp:HOST:PORT (default: the daemon's default, as urom address prints).")
    String listen;

    @Option(
            names = "--auth-keys",
            paramLabel = "DIR",
            description =
                    "The daemon's --auth-keys directory: checked as the daemon checks it; a TCP address needs it or --insecure-tcp.")
    Path authKeys;

    @Option(
            names = "--insecure-tcp",
            description =
                    "The daemon is given --insecure-tcp: a TCP address without --auth-keys is a WARN, not a FAIL.")
    boolean insecureTcp;

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
            throw CliFailure.usage("--listen " + listen + ": " + e.getMessage());
        }
        return List.of(
                new HugepagesCheck(sysRoot),
                new HugetlbfsCheck(sysRoot),
                new PluginDirectoriesCheck(environment.uromPluginPath()),
                new PluginProbeCheck(environment.uromPluginPath()),
                new LogDirectoryCheck(logDir),
                new ListenAddressCheck(address, HANDSHAKE_TIMEOUT, authKeys, insecureTcp),
                new JavaVersionCheck(Runtime.version()));
    }

    private static void print(List<CheckResult> results, PrintWriter out) {
        int failed = 0;
        int warned = 0;
        for (CheckResult result : results) {
            out.printf("%-4s  %s: %s%n", result.grade().label(), result.name(), result.detail());
            if (result.grade() != CheckResult.Grade.OK) {
                out.println("      what to do: " + result.advice());
            }
            failed += result.grade() == CheckResult.Grade.FAIL ? 1 : 0;
            warned += result.grade() == CheckResult.Grade.WARN ? 1 : 0;
        }
        String warnings = warned + " of " + results.size() + " checks warned";
        if (failed > 0) {
            out.println(failed + " of " + results.size() + " checks failed" + (warned > 0 ? "; " + warnings : ""));
        } else if (warned > 0) {
            out.println("no check failed: the daemon can serve here; " + warnings);
        } else {
            out.println("all " + results.size() + " checks passed");
        }
    }

    static String toJson(boolean ok, List<CheckResult> results) throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("ok", ok);
        ArrayNode checks = root.putArray("checks");
        for (CheckResult result : results) {
            checks.addObject()
                    .put("name", result.name())
                    .put("grade", result.grade().name().toLowerCase(java.util.Locale.ROOT))
                    .put("ok", result.ok())
                    .put("detail", result.detail())
                    .put("advice", result.advice());
        }
        return mapper.writeValueAsString(root);
    }
}
