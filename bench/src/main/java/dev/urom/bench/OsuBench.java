// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Unmodified MPI programs with and without {@code liburom_mpi.so}, {@code bin/bench osu --osu DIR
 * [OPTIONS]} ({@link OsuBenchOptions}): the OSU Micro-Benchmarks' non-blocking collectives, which
 * the user builds from OSU's sources (nothing here fetches or builds them), each run three times
 * under the same {@code mpirun} and CPU placement as {@link CollBench} (ranks on the host CPUs, a
 * private daemon and its workers on the worker CPUs):
 *
 * <ul>
 *   <li>{@code open-mpi}: the program alone;
 *   <li>{@code urom}: with the library preloaded ({@code LD_PRELOAD}, after {@code taskset}) and the
 *       daemon's service file, every size offloaded ({@code UROM_MPI_MIN_BYTES=0});
 *   <li>{@code urom-idle}: preloaded with a threshold above every size, so nothing is offloaded:
 *       what the library costs a program it does not help.
 * </ul>
 *
 * Every run validates ({@code -c}); a failed validation fails the run. The library's statistics
 * line ({@code UROM_MPI_STATS=1}) proves that the {@code urom} run offloaded. With {@code
 * --kernel-n N} the distribution's 2-D FFT kernel ({@code share/urom/samples/mpi/fft2d.c}, built
 * with {@code mpicc}) runs as {@code open-mpi} and {@code urom} too, alternately, {@link #KERNEL_RUNS}
 * times each; its figures are the medians.
 *
 * <p>Not thread-safe (one run at a time). The daemon, every {@code mpirun} and its ranks, and the
 * run folder are gone when {@link #run} returns or throws. Exit status 0 when every run asked for
 * was measured, 1 otherwise, 2 on a usage error; each failure is one line on stderr.
 */
public final class OsuBench {
    static final String PROGRAM = "OsuBench";
    static final String OPEN_MPI = "open-mpi";
    static final String UROM = "urom";
    static final String UROM_IDLE = "urom-idle";
    static final List<String> VARIANTS = List.of(OPEN_MPI, UROM, UROM_IDLE);
    static final String LIBRARY = "liburom_mpi.so";
    static final double IDLE_MAX_RATIO = 1.05;
    /** Runs of the kernel per variant, alternating: its time moves by several per cent from run to run here. */
    static final int KERNEL_RUNS = 5;

    private static final Pattern STATS =
            Pattern.compile("urom_mpi: stats: offloaded (\\d+), fell back (\\d+), failed (\\d+), teams (\\d+)");
    private static final Pattern KERNEL =
            Pattern.compile("fft2d n=\\d+ ranks=\\d+ batches=\\d+: ([0-9.]+) us per FFT, compute ([0-9.]+) us,"
                    + " waiting ([0-9.]+) us");

    /** One run's outcome: the program's output, or why there is none. */
    record Run(String output, String why) {
        static Run failed(String why) {
            return new Run(null, why);
        }
    }

    /** The library's statistics line, summed over the ranks. */
    record Stats(long offloaded, long fellBack, long failed, long teams) {
        static Optional<Stats> find(String output) {
            Matcher m = STATS.matcher(output);
            return m.find()
                    ? Optional.of(new Stats(
                            Long.parseLong(m.group(1)),
                            Long.parseLong(m.group(2)),
                            Long.parseLong(m.group(3)),
                            Long.parseLong(m.group(4))))
                    : Optional.empty();
        }
    }

    /** The kernel's result line: microseconds per FFT, computing, and waiting for the exchanges. */
    record Kernel(double perFftUs, double computeUs, double waitUs) {
        static Optional<Kernel> find(String output) {
            Matcher m = KERNEL.matcher(output);
            return m.find()
                    ? Optional.of(new Kernel(
                            Double.parseDouble(m.group(1)),
                            Double.parseDouble(m.group(2)),
                            Double.parseDouble(m.group(3))))
                    : Optional.empty();
        }

        /** Each figure's median over {@code kernels} (not empty), taken figure by figure. */
        static Kernel median(List<Kernel> kernels) {
            return new Kernel(
                    median(kernels, Kernel::perFftUs),
                    median(kernels, Kernel::computeUs),
                    median(kernels, Kernel::waitUs));
        }

        private static double median(List<Kernel> kernels, ToDoubleFunction<Kernel> figure) {
            double[] values = kernels.stream().mapToDouble(figure).sorted().toArray();
            int middle = values.length / 2;
            return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
        }
    }

    private OsuBench() {}

    public static void main(String[] args) {
        System.exit(start(List.of(args)));
    }

    static int start(List<String> args) {
        OsuBenchOptions options;
        try {
            options = OsuBenchOptions.parse(args, CpuList.allowed());
        } catch (IllegalArgumentException e) {
            System.err.println(PROGRAM + ": " + e.getMessage());
            return 2;
        } catch (IllegalStateException e) {
            System.err.println(PROGRAM + ": " + e.getMessage());
            return 1;
        }
        try {
            Map<String, String> failures = new LinkedHashMap<>();
            Report report = run(options, failures, OsuBench::progress);
            System.out.println(PROGRAM + ": " + options.placement().describe() + "; " + options.ranks() + " ranks over "
                    + options.transport().word());
            System.out.print(report.table());
            if (options.json() != null) {
                report.writeJson(options.json());
                System.out.println("JSON written to " + options.json());
            }
            failures.forEach((what, why) -> System.err.println(PROGRAM + ": " + what + " not measured: " + why));
            return failures.isEmpty() ? 0 : 1;
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            System.err.println(PROGRAM + ": " + e.getMessage());
            return 1;
        } catch (InterruptedException e) {
            System.err.println(PROGRAM + ": interrupted");
            return 1;
        }
    }

    /** Runs what {@code options} ask for; {@code failures} gets each run that gave nothing, and why. */
    static Report run(OsuBenchOptions options, Map<String, String> failures, Consumer<String> progress)
            throws IOException, InterruptedException {
        Path library = options.dist().toAbsolutePath().resolve("lib").resolve(LIBRARY);
        if (!Files.isRegularFile(library)) {
            throw new IllegalStateException(library + " is missing; build the distribution first or give --dist");
        }
        Map<String, Path> programs = new LinkedHashMap<>();
        for (String benchmark : options.benchmarks()) {
            programs.put(benchmark, find(options.osu(), benchmark));
        }
        List<Figure> figures = new ArrayList<>();
        try (RunFolder folder = new RunFolder("urom-osu-bench");
                ChildProcesses daemon = new ChildProcesses()) {
            Path pluginDir = Files.createDirectories(folder.path().resolve("plugins"));
            Path plugin = CollBench.pluginFolder(options.plugins(), options.dist())
                    .map(d -> d.resolve(CollBench.NATIVE_PLUGIN_FILE))
                    .filter(Files::isRegularFile)
                    .orElseThrow(() -> new IllegalStateException(
                            "no " + CollBench.NATIVE_PLUGIN_FILE + " (give --plugins DIR, or build plugins/coll)"));
            Files.copy(plugin, pluginDir.resolve(CollBench.NATIVE_PLUGIN_FILE));
            Path serviceFile = MpiJobDaemon.start(
                    options.dist(),
                    options.placement().workers(),
                    options.workerUser(),
                    options.transport(),
                    folder.path(),
                    pluginDir,
                    daemon,
                    progress);
            Launcher launcher = new Launcher(options, folder.path(), library, serviceFile, progress);
            for (Map.Entry<String, Path> benchmark : programs.entrySet()) {
                Map<String, OsuOutput> outputs = new LinkedHashMap<>();
                Map<String, Stats> stats = new LinkedHashMap<>();
                for (String variant : VARIANTS) {
                    Run run = launcher.run(benchmark.getKey(), variant, benchmark.getValue(), osuArgs(options));
                    if (run.why() != null) {
                        failures.put(benchmark.getKey() + " " + variant, run.why());
                        continue;
                    }
                    outputs.put(variant, OsuOutput.parse(run.output()));
                    Stats.find(run.output()).ifPresent(s -> stats.put(variant, s));
                }
                figures.addAll(benchmarkFigures(benchmark.getKey(), options.sizes(), outputs, stats, failures));
            }
            if (options.kernelN() > 0) {
                figures.addAll(kernelFigures(options, launcher, folder.path(), failures));
            }
        }
        return new Report(settings(options, programs, failures), figures);
    }

    /** OSU's arguments: sizes, validation, datatype, and the iterations when given. */
    static List<String> osuArgs(OsuBenchOptions options) {
        List<String> args = new ArrayList<>(
                List.of("-m", options.minBytes() + ":" + options.maxBytes(), "-c", "-T", options.type()));
        if (options.iterations() > 0) {
            args.addAll(List.of("-i", Integer.toString(options.iterations())));
        }
        if (options.warmup() >= 0) {
            args.addAll(List.of("-x", Integer.toString(options.warmup())));
        }
        return args;
    }

    /** The executable file named {@code name} at or below {@code osu} (OSU's build and install trees both work). */
    static Path find(Path osu, String name) throws IOException {
        if (!Files.isDirectory(osu)) {
            throw new IllegalStateException("--osu " + osu + " is not a folder");
        }
        try (Stream<Path> files = Files.find(
                osu,
                8,
                (p, a) -> a.isRegularFile() && p.getFileName().toString().equals(name) && Files.isExecutable(p))) {
            return files.sorted()
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("--osu " + osu + " holds no executable " + name
                            + "; build the OSU Micro-Benchmarks with mpicc first"));
        }
    }

    /** Starts the runs: {@code mpirun} with every rank under {@code taskset} on the host CPUs. */
    private record Launcher(
            OsuBenchOptions options, Path folder, Path library, Path serviceFile, Consumer<String> progress) {
        Run run(String what, String variant, Path program, List<String> args) throws IOException, InterruptedException {
            String label = what + "-" + variant;
            Path output = folder.resolve(label + ".out");
            List<String> command = command(options, variant, library, program, args);
            ProcessBuilder builder =
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment()
                    .put(
                            "TMPDIR",
                            Files.createDirectories(folder.resolve("tmp")).toString());
            builder.environment().keySet().removeIf(name -> name.startsWith("UROM_MPI"));
            builder.environment().put("DOCA_UROM_SERVICE_FILE", serviceFile.toString());
            progress.accept(
                    label + ": " + String.join(" ", command.subList(command.indexOf("taskset"), command.size())));
            long began = System.nanoTime();
            try (ChildProcesses mpirun = new ChildProcesses()) {
                Process process = mpirun.start(builder);
                if (!process.waitFor(options.timeoutS(), TimeUnit.SECONDS)) {
                    return Run.failed("mpirun ran past --timeout-s " + options.timeoutS());
                }
                String text = Files.readString(output, StandardCharsets.UTF_8);
                progress.accept(label + ": exit " + process.exitValue() + " after "
                        + String.format(Locale.ROOT, "%.1f", (System.nanoTime() - began) / 1e9) + " s");
                if (process.exitValue() != 0) {
                    List<String> lines = text.lines().toList();
                    lines.subList(Math.max(0, lines.size() - 20), lines.size())
                            .forEach(l -> progress.accept(label + "> " + l));
                    return Run.failed(
                            "mpirun exited with status " + process.exitValue() + ": " + CollBench.failureLine(lines));
                }
                return new Run(text, null);
            }
        }
    }

    /** One run's command line; the library's settings go through {@code env} so that only the ranks load it. */
    static List<String> command(
            OsuBenchOptions options, String variant, Path library, Path program, List<String> args) {
        List<String> command = new ArrayList<>(List.of("mpirun", "--oversubscribe", "--bind-to", "none"));
        if (MpiJobDaemon.isRoot()) {
            command.add("--allow-run-as-root");
        }
        command.addAll(options.transport().mpirunArguments());
        command.addAll(List.of(
                "-np",
                Integer.toString(options.ranks()),
                "taskset",
                "-c",
                options.placement().hosts().toString()));
        if (!variant.equals(OPEN_MPI)) {
            command.addAll(List.of(
                    "env",
                    "LD_PRELOAD=" + library,
                    "UROM_MPI_STATS=1",
                    "UROM_MPI_MIN_BYTES=" + (variant.equals(UROM) ? 0 : 2 * options.maxBytes())));
        }
        command.add(program.toString());
        command.addAll(args);
        return command;
    }

    /**
     * Per size: each variant's pure latency and overlap; {@code urom}'s overlap holds the target
     * from 64 KiB; {@code urom-idle}'s latency is compared with {@code open-mpi}'s, and their
     * geometric mean ratio over the sizes holds the idle target; {@code urom}'s statistics must
     * show offloaded collectives.
     */
    static List<Figure> benchmarkFigures(
            String benchmark,
            List<Long> sizes,
            Map<String, OsuOutput> outputs,
            Map<String, Stats> stats,
            Map<String, String> failures) {
        List<Figure> figures = new ArrayList<>();
        String id = benchmark.replace("osu_", "");
        double logRatios = 0;
        int ratios = 0;
        for (long bytes : sizes) {
            OsuOutput.Row mpi = row(outputs, OPEN_MPI, bytes);
            for (String variant : VARIANTS) {
                OsuOutput.Row row = row(outputs, variant, bytes);
                String prefix = benchmark + " " + CollBench.size(bytes) + ", " + variant + ": ";
                String rowId = id + "_" + bytes + "_" + variant.replace('-', '_');
                boolean overlapTarget = variant.equals(UROM) && bytes >= CollBench.OVERLAP_FROM_BYTES;
                if (row == null) {
                    if (overlapTarget) {
                        figures.add(Figure.missing(
                                rowId + "_overlap_pct",
                                prefix + "overlap",
                                "%",
                                ">= " + Report.number(CollBench.OVERLAP_MIN_PCT) + " %",
                                outputs.containsKey(variant) ? "no row" : "not measured"));
                    }
                    continue;
                }
                figures.add(
                        mpi != null && !variant.equals(OPEN_MPI)
                                ? Figure.compared(
                                        rowId + "_pure_us",
                                        prefix + "pure latency",
                                        row.pureUs(),
                                        "us",
                                        OPEN_MPI,
                                        mpi.pureUs())
                                : Figure.plain(rowId + "_pure_us", prefix + "pure latency", row.pureUs(), "us"));
                figures.add(
                        overlapTarget
                                ? Figure.atLeast(
                                        rowId + "_overlap_pct",
                                        prefix + "overlap",
                                        row.overlapPct(),
                                        "%",
                                        CollBench.OVERLAP_MIN_PCT)
                                : Figure.plain(rowId + "_overlap_pct", prefix + "overlap", row.overlapPct(), "%"));
                if (variant.equals(UROM_IDLE) && mpi != null && mpi.pureUs() > 0 && row.pureUs() > 0) {
                    logRatios += Math.log(row.pureUs() / mpi.pureUs());
                    ratios++;
                }
            }
        }
        String idleLabel =
                benchmark + ", " + UROM_IDLE + ": pure latency over " + OPEN_MPI + "'s, geometric mean over the sizes";
        figures.add(
                ratios == 0
                        ? Figure.missing(
                                id + "_idle_ratio",
                                idleLabel,
                                "x",
                                "<= " + Report.number(IDLE_MAX_RATIO) + " x",
                                "not measured")
                        : Figure.atMost(
                                id + "_idle_ratio", idleLabel, Math.exp(logRatios / ratios), "x", IDLE_MAX_RATIO));
        String statsLabel = benchmark + ", " + UROM + ": collectives offloaded (all ranks)";
        Stats offloaded = stats.get(UROM);
        figures.add(
                offloaded == null
                        ? Figure.missing(
                                id + "_offloaded",
                                statsLabel,
                                "",
                                ">= 1",
                                failures.containsKey(benchmark + " " + UROM) ? "not measured" : "no statistics line")
                        : Figure.atLeast(id + "_offloaded", statsLabel, offloaded.offloaded(), "", 1));
        return figures;
    }

    private static OsuOutput.Row row(Map<String, OsuOutput> outputs, String variant, long bytes) {
        OsuOutput output = outputs.get(variant);
        return output == null ? null : output.row(bytes);
    }

    /** The 2-D FFT kernel, built from the distribution's sources, without and with the library. */
    private static List<Figure> kernelFigures(
            OsuBenchOptions options, Launcher launcher, Path folder, Map<String, String> failures)
            throws IOException, InterruptedException {
        Path program = buildKernel(options.dist(), folder);
        int n = options.kernelN();
        int batches = Math.max(1, Math.min(8, n / options.ranks()));
        List<String> args = List.of("-n", Integer.toString(n), "-b", Integer.toString(batches));
        Map<String, List<Kernel>> runs = new LinkedHashMap<>();
        for (int round = 0; round < KERNEL_RUNS; round++) {
            for (String variant : List.of(OPEN_MPI, UROM)) {
                if (failures.containsKey("fft2d " + variant)) {
                    continue;
                }
                Run run = launcher.run("fft2d", variant, program, args);
                Optional<Kernel> kernel = run.why() == null ? Kernel.find(run.output()) : Optional.empty();
                if (kernel.isEmpty()) {
                    failures.put("fft2d " + variant, run.why() != null ? run.why() : "no result line");
                    runs.remove(variant);
                    continue;
                }
                runs.computeIfAbsent(variant, v -> new ArrayList<>()).add(kernel.get());
            }
        }
        Map<String, Kernel> results = new LinkedHashMap<>();
        runs.forEach((variant, kernels) -> results.put(variant, Kernel.median(kernels)));
        List<Figure> figures = new ArrayList<>();
        String prefix = "fft2d n=" + n + " (" + batches + " batches, median of " + KERNEL_RUNS + " runs), ";
        Kernel mpi = results.get(OPEN_MPI);
        Kernel urom = results.get(UROM);
        if (mpi != null) {
            figures.add(Figure.plain("fft2d_open_mpi_us", prefix + OPEN_MPI + ": time per FFT", mpi.perFftUs(), "us"));
            figures.add(Figure.plain(
                    "fft2d_open_mpi_wait_us", prefix + OPEN_MPI + ": waiting for the transposes", mpi.waitUs(), "us"));
        }
        if (urom != null) {
            figures.add(
                    mpi != null
                            ? Figure.atMostTimes(
                                    "fft2d_urom_us",
                                    prefix + UROM + ": time per FFT",
                                    urom.perFftUs(),
                                    "us",
                                    OPEN_MPI,
                                    mpi.perFftUs(),
                                    1.0)
                            : Figure.plain("fft2d_urom_us", prefix + UROM + ": time per FFT", urom.perFftUs(), "us"));
            figures.add(Figure.plain(
                    "fft2d_urom_wait_us", prefix + UROM + ": waiting for the transposes", urom.waitUs(), "us"));
        }
        return figures;
    }

    /** Builds the kernel with {@code mpicc} from {@code dist}'s {@code share/urom/samples/mpi/fft2d.c} into {@code folder}. */
    static Path buildKernel(Path dist, Path folder) throws IOException, InterruptedException {
        Path source = dist.toAbsolutePath().resolve("share/urom/samples/mpi/fft2d.c");
        if (!Files.isRegularFile(source)) {
            throw new IllegalStateException(source + " is missing; build the distribution first or give --dist");
        }
        Path program = folder.resolve("fft2d");
        Path log = folder.resolve("fft2d-build.out");
        try (ChildProcesses children = new ChildProcesses()) {
            Process cc = children.start(
                    new ProcessBuilder("mpicc", "-O2", "-o", program.toString(), source.toString(), "-lm")
                            .redirectErrorStream(true)
                            .redirectOutput(log.toFile()));
            if (!cc.waitFor(300, TimeUnit.SECONDS) || cc.exitValue() != 0) {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                throw new IllegalStateException(
                        "building fft2d failed: " + (lines.isEmpty() ? "(no output)" : lines.get(lines.size() - 1)));
            }
        }
        return program;
    }

    private static Map<String, Object> settings(
            OsuBenchOptions options, Map<String, Path> programs, Map<String, String> failures) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("ranks", options.ranks());
        settings.put("sizes", options.minBytes() + ":" + options.maxBytes());
        settings.put("type", options.type());
        settings.put("iterations", options.iterations() > 0 ? Integer.toString(options.iterations()) : "OSU's");
        settings.put("warmup", options.warmup() >= 0 ? Integer.toString(options.warmup()) : "OSU's");
        settings.put("placement", options.placement().describe());
        settings.put("transport", options.transport().word());
        settings.put(
                "workerUser",
                Optional.ofNullable(MpiJobDaemon.workerUser(options.workerUser()))
                        .orElse("the daemon's default"));
        programs.forEach((name, path) -> settings.put("program." + name, path.toString()));
        settings.put("kernelN", options.kernelN());
        settings.put("cpus", Runtime.getRuntime().availableProcessors());
        failures.forEach((what, why) -> settings.put("notMeasured." + what, why));
        return settings;
    }

    private static void progress(String line) {
        System.err.println("[osu] " + line);
    }
}
