// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * The load run: {@code java -cp bench/target/benchmarks.jar dev.urom.bench.LoadBench [--hosts 8]
 * [--workers-per-host 4] [--commands 100000] [--in-flight 16] [--json FILE]} (see {@link
 * LoadOptions}). A private daemon in a process of its own ({@link SoakDaemonMain}) and {@code
 * --hosts} host processes ({@link LoadHostMain}), started one after the
 * other, each with {@code --workers-per-host} workers, C and Java graph plugins mixed; then every
 * host sends {@code --commands} LOOPBACKs to each of its workers at once, {@code --in-flight}
 * outstanding on each.
 *
 * <p>Checks every command of every worker answered once with SUCCESS and its own bytes, so that
 * what it measures is work done. Measures: commands per second overall (from the go to the
 * last answer) and per host, the latency of a command under that load (write to answer,
 * queueing behind the others in flight included) overall and per plugin, and the CPU time per
 * command of the hosts, the daemon and the workers of each plugin (from {@code /proc}, over the
 * traffic only). The traffic is measured from its first command: no warm-up is left out.
 *
 * <p>Not thread-safe (one run at a time). Every process it started is ended and its run folder
 * removed on every way out of {@link #run}; a host that dies is reported, not waited for; every
 * wait has a deadline. Exit status of {@link #main}: 0 every check passed, 1 a check failed (one line
 * on stderr names the first, with how many more), 2 a usage error.
 */
public final class LoadBench {
    /** A worker's plugin argument: an absolute path, a colon, the id in decimal. */
    private static final Pattern PLUGIN_ARGUMENT = Pattern.compile("/.*:[0-9]+");

    private static final Duration DAEMON_START_WAIT = Duration.ofSeconds(60);
    private static final Duration HOST_START_WAIT_PER_WORKER = Duration.ofSeconds(60);
    private static final Duration EXIT_WAIT = Duration.ofSeconds(60);
    /** The slowest a host may answer, on average, before the run stops waiting for its result. */
    private static final long SLOWEST_COMMANDS_PER_SECOND = 200;

    private static final List<String> HOST_JAVA_OPTIONS = List.of("-XX:+UseSerialGC", "-Xmx256m");

    private LoadBench() {}

    /**
     * What a run saw.
     *
     * @param wallNs from the go to the last host's result
     * @param cpuByRole CPU nanoseconds over the traffic: {@code host} (every host), {@code daemon},
     *     {@code worker_graph} and {@code worker_graph_java} (the workers of each plugin)
     * @param failures one line per failed check
     */
    record Result(
            LoadOptions options,
            List<LoadTally> tallies,
            long wallNs,
            Map<String, Long> cpuByRole,
            List<String> failures) {
        boolean passed() {
            return failures.isEmpty();
        }

        List<LoadTally.Worker> workers() {
            return tallies.stream().flatMap(t -> t.workers().stream()).toList();
        }

        long asked() {
            return workers().stream().mapToLong(LoadTally.Worker::asked).sum();
        }

        long answered() {
            return workers().stream().mapToLong(LoadTally.Worker::answered).sum();
        }

        long answered(String plugin) {
            return workers().stream()
                    .filter(w -> w.plugin().equals(plugin))
                    .mapToLong(LoadTally.Worker::answered)
                    .sum();
        }

        /** Commands not answered once with SUCCESS and their own bytes, for whatever reason. */
        long errors() {
            return asked() - answered();
        }

        double commandsPerSecond() {
            return wallNs == 0 ? 0 : answered() / (wallNs / 1e9);
        }

        LatencyHistogram latency(String plugin) {
            LatencyHistogram all = new LatencyHistogram();
            workers().stream()
                    .filter(w -> plugin == null || w.plugin().equals(plugin))
                    .forEach(w -> all.add(LatencyHistogram.of(w.latency())));
            return all;
        }

        /** CPU microseconds per command of {@code role}: per command of its plugin for the workers, per command of the run otherwise. */
        double cpuMicrosPerCommand(String role) {
            long commands = role.startsWith("worker_graph") ? answered(role) : answered();
            return commands == 0 ? 0 : cpuByRole.getOrDefault(role, 0L) / 1000.0 / commands;
        }

        double totalCpuMicrosPerCommand() {
            long commands = answered();
            return commands == 0
                    ? 0
                    : cpuByRole.values().stream().mapToLong(Long::longValue).sum() / 1000.0 / commands;
        }

        /** Commands per second of one worker of {@code plugin}, averaged over those workers. */
        double perWorkerCommandsPerSecond(String plugin) {
            return workers().stream()
                    .filter(w -> w.plugin().equals(plugin) && w.elapsedNs() > 0)
                    .mapToDouble(w -> w.answered() / (w.elapsedNs() / 1e9))
                    .average()
                    .orElse(0);
        }
    }

    public static void main(String[] args) {
        LoadOptions options;
        try {
            options = LoadOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("LoadBench: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            Result result = run(options, line -> System.err.println("load: " + line));
            System.out.print(table(result));
            if (options.json() != null) {
                Files.writeString(options.json(), json(result), StandardCharsets.UTF_8);
                System.out.println("JSON written to " + options.json());
                writeChart(options.json(), result);
            }
            if (!result.passed()) {
                System.err.println("load: FAILED: " + result.failures().get(0)
                        + (result.failures().size() > 1
                                ? " (and " + (result.failures().size() - 1) + " more)"
                                : ""));
                System.exit(1);
            }
            System.out.println("load: every check passed");
            System.exit(0);
        } catch (IOException | RuntimeException e) {
            System.err.println("load: FAILED: " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            System.exit(1);
        }
    }

    /**
     * Runs the load as {@code options} say; {@code progress} gets a line per step.
     *
     * @throws IllegalStateException with one line when the run cannot go on (the daemon or a host
     *     did not start, a host died or gave no result in time); the checks of a run that went to
     *     its end are in {@link Result#failures()}
     */
    static Result run(LoadOptions options, Consumer<String> progress) throws IOException, InterruptedException {
        try (RunFolder run = new RunFolder("urom-load");
                ChildProcesses children = new ChildProcesses()) {
            Path pluginDir = Files.createDirectories(run.path().resolve("plugins"));
            for (String file : List.of(GraphPluginFiles.NATIVE_FILE, GraphPluginFiles.JAVA_FILE)) {
                Files.copy(GraphPluginFiles.locate(file), pluginDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
            }
            Path tmp = Files.createDirectories(run.path().resolve("daemon-tmp"));
            List<String> command = new ArrayList<>(List.of(JavaCommand.java()));
            command.addAll(SoakOptions.DEFAULT_DAEMON_JAVA_OPTIONS);
            command.addAll(List.of(
                    "-Djava.io.tmpdir=" + tmp,
                    "-cp",
                    System.getProperty("java.class.path"),
                    SoakDaemonMain.class.getName(),
                    run.path().toString(),
                    pluginDir.toString(),
                    options.workerUser() == null ? "-" : options.workerUser(),
                    Integer.toString(SoakOptions.DEFAULT_WORKER_LOG_COUNT),
                    "--max-workers",
                    Integer.toString(Integer.highestOneBit(options.workers() * 2 - 1))));
            Path daemonStderr = run.path().resolve("daemon.stderr");
            Process daemon = children.start(new ProcessBuilder(command).redirectError(daemonStderr.toFile()));
            ChildOutput daemonOut = new ChildOutput(daemon, "daemon", daemonStderr);
            String address = daemonOut.expect("READY ", DAEMON_START_WAIT);
            progress.accept("daemon pid " + daemon.pid() + " on " + address);

            List<Host> hosts = new ArrayList<>();
            for (int h = 0; h < options.hosts(); h++) {
                hosts.add(Host.start(children, run.path(), address, h, options));
                hosts.get(h).out.expect("STARTED", HOST_START_WAIT_PER_WORKER.multipliedBy(options.workersPerHost()));
                progress.accept("host " + h + " (pid " + hosts.get(h).process.pid() + ") started "
                        + options.workersPerHost() + " workers");
            }
            Map<Long, String> workerPlugins = workerPlugins(daemon.pid(), options.workers());
            Map<String, Long> pids = new LinkedHashMap<>();
            hosts.forEach(h -> pids.put("host " + h.index, h.process.pid()));
            pids.put("daemon", daemon.pid());
            workerPlugins.keySet().forEach(pid -> pids.put("worker " + pid, pid));

            CpuCost.Snapshot before = CpuCost.snapshot(pids);
            long began = System.nanoTime();
            for (Host host : hosts) {
                host.send("GO");
            }
            progress.accept(options.workers() + " workers x " + options.commands() + " LOOPBACKs, " + options.inFlight()
                    + " in flight each");
            long deadline = began
                    + TimeUnit.SECONDS.toNanos(
                            120 + (long) options.commands() * options.workersPerHost() / SLOWEST_COMMANDS_PER_SECOND);
            List<LoadTally> tallies = new ArrayList<>();
            for (Host host : hosts) {
                String line = host.out.expect("RESULT ", Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
                tallies.add(LoadTally.parse(line));
            }
            long wallNs = System.nanoTime() - began;
            CpuCost.Snapshot after = CpuCost.snapshot(pids);
            Map<String, Long> cpu = cpuByRole(CpuCost.between(before, after, 1), workerPlugins);
            progress.accept("every host has its result after " + wallNs / 1_000_000 + " ms");

            List<String> failures = new ArrayList<>();
            for (LoadTally tally : tallies) {
                for (LoadTally.Worker w : tally.workers()) {
                    workerFailure(tally.host(), w).ifPresent(failures::add);
                }
            }

            for (Host host : hosts) {
                host.process.getOutputStream().close();
            }
            for (Host host : hosts) {
                if (!host.process.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                    failures.add("host " + host.index + " did not end within " + EXIT_WAIT.toSeconds()
                            + " s of EOF on its stdin");
                } else if (host.process.exitValue() != 0) {
                    failures.add("host " + host.index + " ended with status " + host.process.exitValue() + ": "
                            + host.out.lastError());
                }
            }
            daemon.getOutputStream().close();
            if (!daemon.waitFor(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS)) {
                progress.accept("the daemon did not end within " + EXIT_WAIT.toSeconds() + " s of EOF; it is killed");
            }
            return new Result(options, List.copyOf(tallies), wallNs, cpu, List.copyOf(failures));
        }
    }

    /** Why worker {@code w} of host {@code host} failed its check, if it did. */
    static Optional<String> workerFailure(int host, LoadTally.Worker w) {
        if (w.clean()) {
            return Optional.empty();
        }
        List<String> parts = new ArrayList<>();
        if (w.sent() < w.asked()) {
            parts.add((w.asked() - w.sent()) + " LOOPBACKs never sent");
        }
        if (w.unanswered() > 0) {
            parts.add(w.unanswered() + " LOOPBACKs unanswered");
        }
        if (w.wrong() > 0) {
            parts.add(w.wrong() + " answered with wrong bytes");
        }
        if (w.failed() > 0) {
            parts.add(w.failed() + " failed");
        }
        if (parts.isEmpty()) {
            parts.add(w.answered() + " of " + w.asked() + " answered");
        }
        return Optional.of("host " + host + " worker " + w.worker() + " (" + w.plugin() + "): "
                + String.join(", ", parts) + (w.firstProblem() == null ? "" : "; first: " + w.firstProblem()));
    }

    /**
     * The graph plugin a worker runs, by the {@code PATH:ID} arguments that end its command line: a
     * plugin file's name elsewhere on it (its class path may hold the Java plugin's jar) says nothing.
     */
    static String pluginOf(List<String> arguments) {
        boolean java = arguments.stream()
                .anyMatch(a ->
                        PLUGIN_ARGUMENT.matcher(a).matches() && a.contains("/" + GraphPluginFiles.JAVA_FILE + ":"));
        boolean c = arguments.stream()
                .anyMatch(a ->
                        PLUGIN_ARGUMENT.matcher(a).matches() && a.contains("/" + GraphPluginFiles.NATIVE_FILE + ":"));
        return java == c ? "other" : java ? ServiceBench.JAVA_PLUGIN_NAME : ServiceBench.NATIVE_PLUGIN_NAME;
    }

    /** The daemon's live workers (pid → the graph plugin it runs), told apart by their plugin arguments. */
    private static Map<Long, String> workerPlugins(long daemonPid, int expected) {
        Map<Long, String> plugins = new LinkedHashMap<>();
        for (ProcFacts.Child child : ProcFacts.children(daemonPid)) {
            if (child.zombie()) {
                continue;
            }
            String commandLine;
            try {
                commandLine = Files.readString(
                        Path.of("/proc", Long.toString(child.pid()), "cmdline"), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(
                        "cannot read the command line of worker " + child.pid() + ": " + e.getMessage());
            }
            plugins.put(child.pid(), pluginOf(List.of(commandLine.split("\0"))));
        }
        if (plugins.size() != expected || plugins.containsValue("other")) {
            throw new IllegalStateException("the daemon runs " + plugins.size() + " workers " + plugins + ", not the "
                    + expected + " graph workers started");
        }
        return plugins;
    }

    private static Map<String, Long> cpuByRole(CpuCost cost, Map<Long, String> workerPlugins) {
        Map<String, Long> byRole = new LinkedHashMap<>();
        cost.nanosByProcess().forEach((role, nanos) -> {
            String group = role.startsWith("host ")
                    ? "host"
                    : role.startsWith("worker ")
                            ? workerPlugins.get(Long.parseLong(role.substring("worker ".length())))
                            : role;
            byRole.merge(group, nanos, Long::sum);
        });
        return byRole;
    }

    /** One host process and its output. */
    private record Host(int index, Process process, ChildOutput out) {
        static Host start(ChildProcesses children, Path runDir, String address, int index, LoadOptions options)
                throws IOException {
            List<String> command = new ArrayList<>(List.of(JavaCommand.java()));
            command.addAll(HOST_JAVA_OPTIONS);
            command.addAll(List.of(
                    "-cp",
                    System.getProperty("java.class.path"),
                    LoadHostMain.class.getName(),
                    address,
                    Integer.toString(index),
                    Integer.toString(options.workersPerHost()),
                    Integer.toString(options.commands()),
                    Integer.toString(options.inFlight())));
            Path stderr = runDir.resolve("host-" + index + ".stderr");
            Process process = children.start(new ProcessBuilder(command).redirectError(stderr.toFile()));
            return new Host(index, process, new ChildOutput(process, "host " + index, stderr));
        }

        void send(String line) throws IOException {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }
    }

    private static final String[] PLUGINS = {ServiceBench.NATIVE_PLUGIN_NAME, ServiceBench.JAVA_PLUGIN_NAME};

    static String table(Result r) {
        StringBuilder out = new StringBuilder();
        LoadOptions o = r.options();
        out.append(String.format(
                Locale.ROOT,
                "load: %d hosts x %d workers x %d LOOPBACKs, %d in flight per worker%n",
                o.hosts(),
                o.workersPerHost(),
                o.commands(),
                o.inFlight()));
        out.append(String.format(
                Locale.ROOT,
                "  commands %d, answered %d, errors %d, in %.1f s%n",
                r.asked(),
                r.answered(),
                r.errors(),
                r.wallNs() / 1e9));
        out.append(
                String.format(Locale.ROOT, "  throughput %.0f commands/s overall; per host:", r.commandsPerSecond()));
        r.tallies()
                .forEach(t -> out.append(String.format(Locale.ROOT, " %.0f", hostAnswered(t) / (t.elapsedNs() / 1e9))));
        out.append('\n');
        LatencyHistogram all = r.latency(null);
        out.append(String.format(
                Locale.ROOT,
                "  latency (write to answer) p50 %s, p99 %s, p999 %s, max %s%n",
                micros(all.percentileNs(0.50)),
                micros(all.percentileNs(0.99)),
                micros(all.percentileNs(0.999)),
                micros(all.maxNs())));
        out.append(String.format(
                Locale.ROOT,
                "  CPU per command: %.1f us in all (hosts %.1f, daemon %.2f; workers per command of their plugin:",
                r.totalCpuMicrosPerCommand(),
                r.cpuMicrosPerCommand("host"),
                r.cpuMicrosPerCommand("daemon")));
        for (String plugin : PLUGINS) {
            if (r.cpuByRole().containsKey(plugin)) {
                out.append(String.format(Locale.ROOT, " %s %.1f", plugin, r.cpuMicrosPerCommand(plugin)));
            }
        }
        out.append(")\n");
        for (String plugin : PLUGINS) {
            LatencyHistogram latency = r.latency(plugin);
            if (latency.count() > 0) {
                out.append(String.format(
                        Locale.ROOT,
                        "  %-17s %8d answered, %6.0f commands/s per worker, p50 %s, p99 %s, worker CPU %.1f us/command%n",
                        plugin,
                        r.answered(plugin),
                        r.perWorkerCommandsPerSecond(plugin),
                        micros(latency.percentileNs(0.50)),
                        micros(latency.percentileNs(0.99)),
                        r.cpuMicrosPerCommand(plugin)));
            }
        }
        Map<String, Double> ratios = javaOverNative(r);
        if (!ratios.isEmpty()) {
            out.append("  Java plugin / C plugin:");
            ratios.forEach((name, ratio) -> out.append(String.format(Locale.ROOT, " %s %.2fx", name, ratio)));
            out.append('\n');
        }
        r.failures().forEach(f -> out.append("  FAILED: ").append(f).append('\n'));
        return out.toString();
    }

    /** Java plugin over C plugin: worker CPU per command, p99, commands per second per worker; empty unless both ran. */
    static Map<String, Double> javaOverNative(Result r) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        if (r.answered(ServiceBench.NATIVE_PLUGIN_NAME) == 0 || r.answered(ServiceBench.JAVA_PLUGIN_NAME) == 0) {
            return ratios;
        }
        ratios.put(
                "worker CPU/command",
                r.cpuMicrosPerCommand(ServiceBench.JAVA_PLUGIN_NAME)
                        / r.cpuMicrosPerCommand(ServiceBench.NATIVE_PLUGIN_NAME));
        ratios.put(
                "p99",
                r.latency(ServiceBench.JAVA_PLUGIN_NAME).percentileNs(0.99)
                        / (double) r.latency(ServiceBench.NATIVE_PLUGIN_NAME).percentileNs(0.99));
        ratios.put(
                "commands/s per worker",
                r.perWorkerCommandsPerSecond(ServiceBench.JAVA_PLUGIN_NAME)
                        / r.perWorkerCommandsPerSecond(ServiceBench.NATIVE_PLUGIN_NAME));
        return ratios;
    }

    private static long hostAnswered(LoadTally t) {
        return t.workers().stream().mapToLong(LoadTally.Worker::answered).sum();
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.1f us", nanos / 1000.0);
    }

    /**
     * {@code FILE-latency.png} next to {@code json}: the latency under load of every command and of
     * each plugin's, as a percentile chart; nothing when no command was answered.
     */
    static boolean writeChart(Path json, Result r) {
        if (r.latency(null).count() == 0) {
            return false;
        }
        Map<String, LatencyCurve> curves = new LinkedHashMap<>();
        curves.put("every command", r.latency(null).curve(LatencyCurve.MAX_POINTS));
        for (String plugin : List.of(ServiceBench.NATIVE_PLUGIN_NAME, ServiceBench.JAVA_PLUGIN_NAME)) {
            LatencyHistogram latency = r.latency(plugin);
            if (latency.count() > 0) {
                curves.put(plugin, latency.curve(LatencyCurve.MAX_POINTS));
            }
        }
        Path png = LatencyChart.pathFor(json);
        LoadOptions o = r.options();
        return Plots.render(
                "LoadBench",
                png,
                () -> Plots.latency(
                        png,
                        "LoadBench: command latency under load, write to answer",
                        o.hosts() + " hosts x " + o.workersPerHost() + " workers x " + o.commands() + " commands, "
                                + o.inFlight() + " in flight per worker",
                        "command, write to answer",
                        curves));
    }

    static String json(Result r) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("benchmark", "LoadBench");
        LoadOptions o = r.options();
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("hosts", o.hosts());
        settings.put("workers_per_host", o.workersPerHost());
        settings.put("commands_per_worker", o.commands());
        settings.put("in_flight", o.inFlight());
        doc.put("settings", settings);
        doc.put("commands", r.asked());
        doc.put("answered", r.answered());
        doc.put("errors", r.errors());
        doc.put("seconds", r.wallNs() / 1e9);
        doc.put("commands_per_second", r.commandsPerSecond());
        doc.put(
                "commands_per_second_by_host",
                r.tallies().stream()
                        .map(t -> hostAnswered(t) / (t.elapsedNs() / 1e9))
                        .toList());
        Map<String, Object> latency = new LinkedHashMap<>();
        latency.put("all", latencyJson(r.latency(null)));
        for (String plugin : PLUGINS) {
            if (r.latency(plugin).count() > 0) {
                latency.put(plugin, latencyJson(r.latency(plugin)));
            }
        }
        doc.put("latency_us", latency);
        Map<String, Object> cpu = new LinkedHashMap<>();
        cpu.put("all", r.totalCpuMicrosPerCommand());
        r.cpuByRole().keySet().forEach(role -> cpu.put(role, r.cpuMicrosPerCommand(role)));
        doc.put("cpu_us_per_command", cpu);
        doc.put("java_over_c", javaOverNative(r));
        doc.put("failures", r.failures());
        doc.put("passed", r.passed());
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(doc) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the load results as JSON: " + e.getOriginalMessage());
        }
    }

    private static Map<String, Object> latencyJson(LatencyHistogram h) {
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("p50", h.percentileNs(0.50) / 1000.0);
        figures.put("p99", h.percentileNs(0.99) / 1000.0);
        figures.put("p999", h.percentileNs(0.999) / 1000.0);
        figures.put("max", h.maxNs() / 1000.0);
        figures.put("mean", h.meanNs() / 1000.0);
        return figures;
    }
}
