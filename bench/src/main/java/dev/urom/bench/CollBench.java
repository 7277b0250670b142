// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The collectives benchmark, {@code bin/bench coll [OPTIONS]} ({@link CollBenchOptions}): the coll
 * plugin's offloaded collectives against Open MPI's own non-blocking ones, measured the OSU
 * Micro-Benchmarks' way by the {@code urom_coll} sample ({@code host-c/samples/coll}, {@code --bench}):
 * per collective and size, the pure latency, the overall time with a computation as long as the
 * pure latency between post and wait, that computation's time, and the overlap.
 *
 * <p>A run, step by step:
 *
 * <ol>
 *   <li>The sample is built from the distribution's {@code share/urom/samples} with its pkg-config
 *       into the run folder (or given, {@code --program}).
 *   <li>The machine's CPUs are split ({@link CollPlacement}): a private daemon ({@code bin/urom
 *       daemon} under {@code taskset}; its workers inherit the affinity) on the worker CPUs, and
 *       {@code mpirun} with every rank under {@code taskset} on the host CPUs.
 *   <li>{@code mpirun} runs the C plugin with Open MPI beside it ({@code --impl both}), then the Java
 *       plugin ({@code --impl offload -p worker_coll_java}).
 *   <li>With the daemon stopped, Open MPI alone runs on every CPU ({@code --impl mpi --skip-check});
 *       Open MPI on the host CPUs runs alone too when the C plugin's run does not give it.
 *   <li>The runs' results files are merged ({@link CollResults}) into one {@link Report} with the
 *       targets, printed under a line naming the placement, written as JSON with {@code --json} and
 *       drawn next to it ({@link CollCharts}).
 * </ol>
 *
 * <p>Not thread-safe (one run at a time). The daemon, its workers, every {@code mpirun} and its ranks,
 * and the run folder are gone when {@link #run} returns or throws. An implementation whose run failed
 * or could not start (no plugin file) is reported as not measured, with the reason, and the others
 * still are; {@link #main} then exits 1. Exit status 0 when everything asked for was measured, 1
 * otherwise, 2 on a usage error; each failure is one line on stderr.
 */
public final class CollBench {
    static final String PROGRAM = "CollBench";
    static final double OVERLAP_MIN_PCT = 90;
    static final long OVERLAP_FROM_BYTES = 64 << 10;
    static final long LATENCY_BYTES = 1 << 20;
    static final double LATENCY_MAX_RATIO = 1.5;
    static final double JAVA_MAX_RATIO = 1.5;
    static final long ROUND_TRIP_BYTES = 8;
    static final String NATIVE_PLUGIN = "worker_coll";
    static final String JAVA_PLUGIN = "worker_coll_java";
    static final String NATIVE_PLUGIN_FILE = NATIVE_PLUGIN + ".so";
    static final String JAVA_PLUGIN_FILE = JAVA_PLUGIN + ".jar";
    /** A folder holding the coll plugin's files, instead of the distribution's plugins/worker_coll or plugins/coll/target. */
    static final String DIR_PROPERTY = "urom.bench.coll.dir";

    /**
     * What {@link #run} measured: the merged rows, why each implementation asked for has none (in
     * {@link CollBenchOptions#IMPLS}' order), and the report of both.
     */
    record Outcome(CollResults results, Map<String, String> notMeasured, Report report) {}

    private CollBench() {}

    public static void main(String[] args) {
        System.exit(start(List.of(args), CpuList::allowed));
    }

    /**
     * Parses {@code args} on the CPUs {@code allowed} gives and runs: the exit status; a usage error
     * is one line on stderr and 2, before anything runs; CPUs that cannot be told, one line and 1.
     */
    static int start(List<String> args, java.util.function.Supplier<CpuList> allowed) {
        CollBenchOptions options;
        try {
            options = CollBenchOptions.parse(args, allowed.get());
        } catch (IllegalArgumentException e) {
            System.err.println(PROGRAM + ": " + e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            System.err.println(PROGRAM + ": " + e.getMessage());
            return 1;
        }
        return printRun(options);
    }

    /** Runs, prints the placement and the table, writes the JSON and the charts; the exit status. */
    static int printRun(CollBenchOptions options) {
        try {
            Outcome outcome = run(options, CollBench::progress);
            System.out.println(PROGRAM + ": " + options.placement().describe() + "; " + options.ranks() + " ranks");
            System.out.print(outcome.report().table());
            if (options.json() != null) {
                outcome.report().writeJson(options.json());
                System.out.println("JSON written to " + options.json());
                CollCharts.write(PROGRAM, options.json(), outcome.results(), options);
            }
            outcome.notMeasured()
                    .forEach((impl, why) -> System.err.println(PROGRAM + ": " + impl + " not measured: " + why));
            return outcome.notMeasured().isEmpty() ? 0 : 1;
        } catch (IOException | UncheckedIOException | IllegalStateException | IllegalArgumentException e) {
            System.err.println(PROGRAM + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            System.err.println(PROGRAM + ": interrupted");
            return 1;
        }
    }

    /** Measures what {@code options} ask for; {@code progress} hears what is going on. */
    static Outcome run(CollBenchOptions options, Consumer<String> progress) throws IOException, InterruptedException {
        try (RunFolder run = new RunFolder("urom-coll-bench")) {
            Path folder = run.path();
            Path program =
                    options.program() != null ? given(options.program()) : build(options.dist(), folder, progress);
            Sample sample = new Sample(options, program, folder, progress);
            CollResults results = CollResults.empty();
            Map<String, String> failures = new LinkedHashMap<>();
            Map<String, Object> settings = new LinkedHashMap<>();
            String mpiHostRun = "not measured";
            boolean offloadC = options.measures(CollBenchOptions.OFFLOAD_C);
            boolean offloadJava = options.measures(CollBenchOptions.OFFLOAD_JAVA);
            boolean mpiHost = options.measures(CollBenchOptions.MPI_HOST_CPUS);
            CpuList hosts = options.placement().hosts();
            if (offloadC || offloadJava) {
                Optional<Path> plugins = pluginFolder(options.plugins(), options.dist());
                settings.put("pluginFolder", plugins.map(Path::toString).orElse("none found"));
                Path pluginDir = Files.createDirectories(folder.resolve("plugins"));
                boolean hasNative = copyPlugin(plugins, NATIVE_PLUGIN_FILE, pluginDir);
                boolean hasJava = copyPlugin(plugins, JAVA_PLUGIN_FILE, pluginDir);
                try (ChildProcesses daemon = new ChildProcesses()) {
                    Path serviceFile = null;
                    String noDaemon = null;
                    if (hasNative && offloadC || hasJava && offloadJava) {
                        try {
                            serviceFile = MpiJobDaemon.start(
                                    options.dist(),
                                    options.placement().workers(),
                                    options.workerUser(),
                                    MpiTransport.SHM,
                                    folder,
                                    pluginDir,
                                    daemon,
                                    progress);
                        } catch (IllegalStateException e) {
                            noDaemon = "the daemon did not start: " + e.getMessage();
                        }
                    }
                    if (offloadC) {
                        Attempt c = !hasNative
                                ? Attempt.failed(noPlugin(plugins, NATIVE_PLUGIN_FILE))
                                : noDaemon != null
                                        ? Attempt.failed(noDaemon)
                                        : sample.run(
                                                CollBenchOptions.OFFLOAD_C,
                                                hosts,
                                                serviceFile,
                                                mpiHost ? CollBenchOptions.MPI_HOST_CPUS : "mpi",
                                                "--impl",
                                                mpiHost ? "both" : "offload",
                                                "-p",
                                                NATIVE_PLUGIN);
                        results = keep(c, CollBenchOptions.OFFLOAD_C, results, failures);
                        if (results.has(CollBenchOptions.MPI_HOST_CPUS)) {
                            mpiHostRun = "beside the C plugin, daemon and workers up";
                        }
                    }
                    if (offloadJava) {
                        Attempt java = !hasJava
                                ? Attempt.failed(noPlugin(plugins, JAVA_PLUGIN_FILE))
                                : noDaemon != null
                                        ? Attempt.failed(noDaemon)
                                        : sample.run(
                                                CollBenchOptions.OFFLOAD_JAVA,
                                                hosts,
                                                serviceFile,
                                                "mpi",
                                                "--impl",
                                                "offload",
                                                "-p",
                                                JAVA_PLUGIN);
                        results = keep(java, CollBenchOptions.OFFLOAD_JAVA, results, failures);
                    }
                }
            }
            if (mpiHost && !results.has(CollBenchOptions.MPI_HOST_CPUS)) {
                Attempt alone = sample.run(
                        CollBenchOptions.MPI_HOST_CPUS,
                        hosts,
                        null,
                        CollBenchOptions.MPI_HOST_CPUS,
                        "--impl",
                        "mpi",
                        "--skip-check");
                results = keep(alone, CollBenchOptions.MPI_HOST_CPUS, results, failures);
                if (results.has(CollBenchOptions.MPI_HOST_CPUS)) {
                    mpiHostRun = "alone, no daemon";
                }
            }
            if (options.measures(CollBenchOptions.MPI_ALL_CPUS)) {
                Attempt all = sample.run(
                        CollBenchOptions.MPI_ALL_CPUS,
                        options.placement().all(),
                        null,
                        CollBenchOptions.MPI_ALL_CPUS,
                        "--impl",
                        "mpi",
                        "--skip-check");
                results = keep(all, CollBenchOptions.MPI_ALL_CPUS, results, failures);
            }
            Map<String, String> notMeasured = new LinkedHashMap<>();
            for (String impl : CollBenchOptions.IMPLS) {
                if (failures.containsKey(impl)) {
                    notMeasured.put(impl, failures.get(impl));
                }
            }
            settings.putAll(settings(options, program, mpiHostRun, notMeasured));
            return new Outcome(
                    results,
                    notMeasured,
                    new Report(
                            settings,
                            figures(options.colls(), options.sizes(), options.impls(), results, notMeasured)));
        }
    }

    /** One run of the sample: its rows, or why it gave none. */
    record Attempt(CollResults results, String why) {
        static Attempt failed(String why) {
            return new Attempt(null, why);
        }
    }

    private static CollResults keep(Attempt attempt, String impl, CollResults results, Map<String, String> failures) {
        if (attempt.results() == null) {
            failures.put(impl, attempt.why());
            return results;
        }
        return results.merge(attempt.results());
    }

    /** The sample {@code urom_coll} under {@code mpirun}, run as {@code options} say. */
    private record Sample(CollBenchOptions options, Path program, Path folder, Consumer<String> progress) {
        /**
         * Runs it with every rank under {@code taskset -c cpus}, the service file {@code serviceFile}
         * (null: none), and {@code args} after the benchmark's own; its rows of impl {@code mpi} are
         * named {@code mpiAs}. A run that fails, or ends past {@code --timeout-s}, gives the reason.
         */
        Attempt run(String what, CpuList cpus, Path serviceFile, String mpiAs, String... args)
                throws IOException, InterruptedException {
            Path results = folder.resolve(what + ".json");
            Path output = folder.resolve(what + ".out");
            List<String> command = mpirunCommand(options, program, cpus, results, what, List.of(args));
            ProcessBuilder builder =
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            // Open MPI's session folder goes in the run folder, and with it whatever a killed run leaves.
            builder.environment()
                    .put(
                            "TMPDIR",
                            Files.createDirectories(folder.resolve("tmp")).toString());
            builder.environment().remove("DOCA_UROM_SERVICE_FILE");
            if (serviceFile != null) {
                builder.environment().put("DOCA_UROM_SERVICE_FILE", serviceFile.toString());
            }
            progress.accept(
                    what + ": " + String.join(" ", command.subList(command.indexOf("taskset"), command.size())));
            long began = System.nanoTime();
            try (ChildProcesses mpirun = new ChildProcesses()) {
                Process process = mpirun.start(builder);
                if (!process.waitFor(options.timeoutS(), TimeUnit.SECONDS)) {
                    return Attempt.failed("mpirun ran past --timeout-s " + options.timeoutS());
                }
                int status = process.exitValue();
                progress.accept(what + ": exit " + status + " after "
                        + String.format(Locale.ROOT, "%.1f", (System.nanoTime() - began) / 1e9) + " s");
                if (status != 0 || !Files.isRegularFile(results)) {
                    List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
                    lines.subList(Math.max(0, lines.size() - 20), lines.size())
                            .forEach(l -> progress.accept(what + "> " + l));
                    return Attempt.failed("mpirun exited with status " + status + ": " + failureLine(lines));
                }
                return new Attempt(CollResults.parse(Files.readString(results, StandardCharsets.UTF_8), mpiAs), null);
            }
        }
    }

    /** The {@code mpirun} command line of one run. */
    static List<String> mpirunCommand(
            CollBenchOptions options, Path program, CpuList cpus, Path results, String label, List<String> args) {
        List<String> command = new ArrayList<>(List.of("mpirun", "--oversubscribe", "--bind-to", "none"));
        if (MpiJobDaemon.isRoot()) {
            command.add("--allow-run-as-root");
        }
        command.addAll(List.of(
                "-np",
                Integer.toString(options.ranks()),
                "taskset",
                "-c",
                cpus.toString(),
                program.toString(),
                "--bench",
                "--sizes",
                options.minBytes() + ":" + options.maxBytes(),
                "--colls",
                String.join(",", options.colls())));
        if (options.iterations() > 0) {
            command.addAll(List.of("--iterations", Integer.toString(options.iterations())));
        }
        if (options.warmup() >= 0) {
            command.addAll(List.of("--warmup", Integer.toString(options.warmup())));
        }
        command.addAll(List.of("--results", results.toString(), "--label", label));
        command.addAll(args);
        return command;
    }

    /**
     * The line that says why a run failed: the first that names a failure other than a rank's
     * closing {@code coll FAILED}, else the first error, else the last line.
     */
    static String failureLine(List<String> lines) {
        List<String> said =
                lines.stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
        return said.stream()
                .filter(l -> l.contains("FAILED") && !l.matches("rank \\d+: coll FAILED.*"))
                .findFirst()
                .or(() -> said.stream().filter(l -> l.contains("ERROR")).findFirst())
                .orElse(said.isEmpty() ? "(no output)" : said.get(said.size() - 1));
    }

    private static Path given(Path program) {
        if (!Files.isExecutable(program)) {
            throw new IllegalStateException("--program " + program + " is not an executable file");
        }
        return program.toAbsolutePath();
    }

    /**
     * Builds {@code urom_coll} from {@code dist}'s {@code share/urom/samples/coll} with the
     * distribution's pkg-config, as a user does, into {@code folder}.
     */
    static Path build(Path dist, Path folder, Consumer<String> progress) throws IOException, InterruptedException {
        Path sources = dist.resolve("share/urom/samples/coll");
        if (!Files.isRegularFile(sources.resolve("Makefile"))) {
            throw new IllegalStateException(dist + " has no share/urom/samples/coll; build the distribution first"
                    + " (mvn -B -o -q package -DskipTests -pl cli -am) or give --dist or --program");
        }
        Path buildDir = Files.createDirectories(folder.resolve("sample"));
        Path log = folder.resolve("sample-build.out");
        progress.accept("building urom_coll from " + sources);
        ProcessBuilder make = new ProcessBuilder(
                        "make", "--no-print-directory", "-C", sources.toString(), "BUILD_DIR=" + buildDir)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        make.environment()
                .put(
                        "PKG_CONFIG_PATH",
                        dist.toAbsolutePath().resolve("lib/pkgconfig").toString());
        try (ChildProcesses children = new ChildProcesses()) {
            Process process = children.start(make);
            if (!process.waitFor(600, TimeUnit.SECONDS) || process.exitValue() != 0) {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                throw new IllegalStateException("building urom_coll failed: "
                        + (lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1)));
            }
        }
        return buildDir.resolve("urom_coll");
    }

    /**
     * The folder of the coll plugin's files: {@code plugins} (the option {@code --plugins}), else the folder the system property
     * {@value #DIR_PROPERTY} names ({@code bin/bench}: this checkout's plugins/coll/target), else
     * {@code dist}'s {@code plugins/worker_coll}, else {@code plugins/coll/target} at or above
     * the working directory; the first that holds either file. Empty when none does.
     */
    static Optional<Path> pluginFolder(Path plugins, Path dist) {
        List<Path> candidates = new ArrayList<>();
        if (plugins != null) {
            return Optional.of(plugins);
        }
        String configured = System.getProperty(DIR_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            candidates.add(Path.of(configured));
        }
        candidates.add(dist.resolve("plugins").resolve(NATIVE_PLUGIN));
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            candidates.add(dir.resolve("plugins/coll/target"));
        }
        return candidates.stream()
                .filter(d -> Files.isRegularFile(d.resolve(NATIVE_PLUGIN_FILE))
                        || Files.isRegularFile(d.resolve(JAVA_PLUGIN_FILE)))
                .findFirst();
    }

    private static boolean copyPlugin(Optional<Path> plugins, String file, Path pluginDir) throws IOException {
        if (plugins.isEmpty() || !Files.isRegularFile(plugins.get().resolve(file))) {
            return false;
        }
        Files.copy(plugins.get().resolve(file), pluginDir.resolve(file), StandardCopyOption.REPLACE_EXISTING);
        return true;
    }

    private static String noPlugin(Optional<Path> plugins, String file) {
        return "no " + file
                + (plugins.isPresent() ? " in " + plugins.get() : " (give --plugins DIR, or build plugins/coll)");
    }

    private static Map<String, Object> settings(
            CollBenchOptions options, Path program, String mpiHostRun, Map<String, String> notMeasured) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("ranks", options.ranks());
        settings.put("sizes", options.minBytes() + ":" + options.maxBytes());
        settings.put("colls", String.join(",", options.colls()));
        settings.put("impls", String.join(",", options.impls()));
        settings.put(
                "iterations",
                options.iterations() > 0 ? Integer.toString(options.iterations()) : "OSU's: 1000, 100 above 8 KiB");
        settings.put(
                "warmup", options.warmup() >= 0 ? Integer.toString(options.warmup()) : "OSU's: 100, 10 above 8 KiB");
        settings.put("hostCpus", options.placement().hosts().toString());
        settings.put("workerCpus", options.placement().workers().toString());
        settings.put("mpiAllCpus", options.placement().all().toString());
        settings.put("placement", options.placement().describe());
        settings.put("mpiHostCpusRun", mpiHostRun);
        settings.put(
                "workerUser",
                Optional.ofNullable(MpiJobDaemon.workerUser(options.workerUser()))
                        .orElse("the daemon's default"));
        settings.put(
                "program",
                options.program() != null
                        ? program.toString()
                        : "built from the distribution's share/urom/samples/coll");
        settings.put("mpi", mpiVersion());
        settings.put("cpus", Runtime.getRuntime().availableProcessors());
        notMeasured.forEach((impl, why) -> settings.put("notMeasured." + impl, why));
        return settings;
    }

    private static String mpiVersion() {
        try {
            Process process = new ProcessBuilder("mpirun", "--version")
                    .redirectErrorStream(true)
                    .start();
            String first = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .findFirst()
                    .orElse("");
            process.waitFor(10, TimeUnit.SECONDS);
            return first.strip();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * The figures: the round trip of each offloaded implementation; then per collective, size and
     * implementation its pure latency, overall time, compute time and overlap, with the targets
     * ({@code docs/benchmarks.md}) on the rows they hold; an implementation in {@code notMeasured}
     * gets one row saying why, and its targets as not measured.
     */
    static List<Figure> figures(
            List<String> colls,
            List<Long> sizes,
            List<String> impls,
            CollResults results,
            Map<String, String> notMeasured) {
        List<Figure> figures = new ArrayList<>();
        for (String impl : impls) {
            if (notMeasured.containsKey(impl)) {
                figures.add(Figure.missing(
                        id(impl, "not_measured"),
                        impl + ": not measured (the reason: stderr, JSON settings)",
                        "",
                        null,
                        shortReason(notMeasured.get(impl))));
            }
        }
        for (String impl : impls) {
            if (impl.startsWith("offload-")) {
                String label = "host->worker command round trip, " + impl;
                Double roundTrip = results.roundTripsUs().get(impl);
                figures.add(
                        roundTrip == null
                                ? Figure.missing(id(impl, "round_trip_us"), label, "us", null, why(notMeasured, impl))
                                : Figure.plain(id(impl, "round_trip_us"), label, roundTrip, "us"));
            }
        }
        for (String coll : colls) {
            for (long bytes : sizes) {
                if (coll.equals("allreduce") && bytes < Float.BYTES) {
                    continue;
                }
                for (String impl : impls) {
                    figures.addAll(rowFigures(coll, bytes, impl, impls, results, notMeasured));
                }
            }
        }
        return figures;
    }

    private static List<Figure> rowFigures(
            String coll,
            long bytes,
            String impl,
            List<String> impls,
            CollResults results,
            Map<String, String> notMeasured) {
        List<Figure> figures = new ArrayList<>();
        String prefix = coll + " " + size(bytes) + ", " + impl + ": ";
        String id = coll + "_" + bytes + "_" + impl.replace('-', '_');
        boolean offload = impl.startsWith("offload-");
        Optional<CollResults.Row> row = results.row(coll, impl, bytes);
        boolean overlapTarget = offload && bytes >= OVERLAP_FROM_BYTES;
        boolean latencyTarget = offload && bytes == LATENCY_BYTES;
        boolean javaTarget = impl.equals(CollBenchOptions.OFFLOAD_JAVA)
                && bytes >= OVERLAP_FROM_BYTES
                && impls.contains(CollBenchOptions.OFFLOAD_C);
        String overlapLimit = ">= " + Report.number(OVERLAP_MIN_PCT) + " %";
        if (row.isEmpty()) {
            String why = why(notMeasured, impl);
            if (latencyTarget) {
                figures.add(Figure.missing(
                        id + "_pure_us",
                        prefix + "pure latency vs the better Open MPI",
                        "us",
                        Figure.atMostTarget(LATENCY_MAX_RATIO),
                        why));
            }
            if (overlapTarget) {
                figures.add(Figure.missing(id + "_overlap_pct", prefix + "overlap", "%", overlapLimit, why));
            }
            if (javaTarget) {
                figures.add(Figure.missing(
                        id + "_pure_vs_c",
                        prefix + "pure latency vs the C plugin's",
                        "us",
                        Figure.atMostTarget(JAVA_MAX_RATIO),
                        why));
            }
            return figures;
        }
        CollResults.Row r = row.get();
        Double roundTrip = results.roundTripsUs().get(impl);
        Optional<CollResults.Row> bestMpi =
                List.of(CollBenchOptions.MPI_HOST_CPUS, CollBenchOptions.MPI_ALL_CPUS).stream()
                        .flatMap(m -> results.row(coll, m, bytes).stream())
                        .min(java.util.Comparator.comparingDouble(CollResults.Row::pureUs));
        if (latencyTarget) {
            figures.add(
                    bestMpi.isPresent()
                            ? Figure.atMostTimes(
                                    id + "_pure_us",
                                    prefix + "pure latency",
                                    r.pureUs(),
                                    "us",
                                    "better Open MPI (" + bestMpi.get().impl() + ")",
                                    bestMpi.get().pureUs(),
                                    LATENCY_MAX_RATIO)
                            : Figure.missing(
                                    id + "_pure_us",
                                    prefix + "pure latency vs the better Open MPI",
                                    "us",
                                    Figure.atMostTarget(LATENCY_MAX_RATIO),
                                    "no Open MPI figure at " + size(bytes)));
        } else if (offload && bytes == ROUND_TRIP_BYTES && roundTrip != null) {
            figures.add(Figure.compared(
                    id + "_pure_us", prefix + "pure latency", r.pureUs(), "us", "command round trip", roundTrip));
        } else {
            figures.add(Figure.plain(id + "_pure_us", prefix + "pure latency", r.pureUs(), "us"));
        }
        figures.add(Figure.plain(id + "_overall_us", prefix + "overall", r.overallUs(), "us"));
        figures.add(Figure.plain(id + "_compute_us", prefix + "compute", r.computeUs(), "us"));
        figures.add(
                overlapTarget
                        ? Figure.atLeast(id + "_overlap_pct", prefix + "overlap", r.overlapPct(), "%", OVERLAP_MIN_PCT)
                        : Figure.plain(id + "_overlap_pct", prefix + "overlap", r.overlapPct(), "%"));
        if (javaTarget) {
            Optional<CollResults.Row> c = results.row(coll, CollBenchOptions.OFFLOAD_C, bytes);
            figures.add(
                    c.isPresent()
                            ? Figure.atMostTimes(
                                    id + "_pure_vs_c",
                                    prefix + "pure latency vs the C plugin's",
                                    r.pureUs(),
                                    "us",
                                    "offload-c",
                                    c.get().pureUs(),
                                    JAVA_MAX_RATIO)
                            : Figure.missing(
                                    id + "_pure_vs_c",
                                    prefix + "pure latency vs the C plugin's",
                                    "us",
                                    Figure.atMostTarget(JAVA_MAX_RATIO),
                                    why(notMeasured, CollBenchOptions.OFFLOAD_C)));
        }
        return figures;
    }

    /** A reason in a few words, for the table: the whole of it is on stderr and in the JSON settings. */
    static String shortReason(String why) {
        if (why.startsWith("no ") && why.contains(".so") || why.startsWith("no ") && why.contains(".jar")) {
            return "no plugin file";
        }
        if (why.startsWith("the daemon did not start")) {
            return "no daemon";
        }
        return why.contains("--timeout-s") ? "timed out" : "run failed";
    }

    private static String why(Map<String, String> notMeasured, String impl) {
        return notMeasured.containsKey(impl) ? impl + " not measured" : "no row";
    }

    private static String id(String impl, String what) {
        return impl.replace('-', '_') + "_" + what;
    }

    /** A message size for people: {@code 8 B}, {@code 64 KiB}, {@code 4 MiB}, or bytes when not a whole number of either. */
    static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return bytes / (1 << 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return bytes / (1 << 10) + " KiB";
        }
        return bytes + " B";
    }

    private static void progress(String line) {
        System.err.println("[coll] " + line);
    }
}
