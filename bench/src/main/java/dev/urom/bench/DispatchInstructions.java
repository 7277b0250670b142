// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Instructions per command of the in-process dispatch, C plugin against Java plugin, counted by
 * valgrind's callgrind, which is repeatable whatever else the machine runs: {@code java -cp
 * bench/target/benchmarks.jar dev.urom.bench.DispatchInstructions [--warm-up N] [--commands N]
 * [--runs R] [--json FILE]}.
 *
 * <p>For each plugin, {@link DispatchDriver} runs {@code --runs} times in a JVM of its own under
 * {@code valgrind --tool=callgrind}: {@code --warm-up} LOOPBACKs uninstrumented, then {@code
 * --commands} in its {@link CallgrindWindow}, the only stretch callgrind counts. The rows:
 *
 * <ul>
 *   <li>the headline: the dispatching thread's instructions in the window per command;
 *   <li>what the JVM's other threads (JIT compiler, GC, VM thread) did meanwhile ({@link
 *       CallgrindParts});
 *   <li>the spread: how far the runs lie apart.
 * </ul>
 *
 * <p>What makes the count repeatable:
 *
 * <ul>
 *   <li>the JVM compiles synchronously ({@value #BATCH_COMPILATION}): the commands that need a method
 *       compiled wait for it, so the warm-up ends with the code compiled and the window runs that
 *       code whatever the machine's timing;
 *   <li>a fixed serial heap;
 *   <li>valgrind schedules its threads fairly, since a busy thread would otherwise starve the
 *       compiler threads.
 * </ul>
 *
 * <p>valgrind runs with exact registers at memory accesses and checks all code for changes, which
 * HotSpot's compiled code needs; it slows valgrind, not what it counts. valgrind is {@code valgrind}
 * on the PATH, or system property {@value #VALGRIND_PROPERTY}. Exit status 0, 1 with one line on
 * stderr when a run fails, 2 on a usage error.
 */
public final class DispatchInstructions {
    static final String VALGRIND_PROPERTY = "urom.bench.valgrind";
    static final int DEFAULT_WARM_UP = 20_000;
    static final int DEFAULT_COMMANDS = 10_000;
    static final int DEFAULT_RUNS = 2;
    static final int MAX_RUNS = 100;
    static final String USAGE =
            "usage: DispatchInstructions [--warm-up N (default " + DEFAULT_WARM_UP + ")] [--commands N (default "
                    + DEFAULT_COMMANDS + ")] [--runs R (default " + DEFAULT_RUNS + ")] [--json FILE]";
    static final String BATCH_COMPILATION = "-Xbatch";
    /** The driver's JVM: compiles in the foreground, and a heap that neither grows nor fills in the window. */
    static final List<String> DRIVER_JVM_OPTIONS =
            List.of(BATCH_COMPILATION, "-XX:+UseSerialGC", "-Xms256m", "-Xmx256m");

    private static final Map<String, String> PLUGIN_NAMES = Map.of("native", "C plugin", "java", "Java plugin");
    /**
     * HotSpot turns the SIGSEGV of an implicit null check or a safepoint poll into its own work by
     * the faulting instruction's address: without registers exact at every memory access, valgrind
     * reports the start of its block instead and the JVM dies of a SIGSEGV in compiled code.
     */
    private static final String PRECISE_FAULTS = "--vex-iropt-register-updates=allregs-at-mem-access";
    /** The JIT patches compiled code in place. */
    private static final String SELF_MODIFYING_CODE = "--smc-check=all";
    /** Instrumented only in the window, one output file per thread. */
    private static final List<String> WINDOW_ONLY = List.of("--instr-atstart=no", "--separate-threads=yes");
    /** valgrind runs one thread at a time; unfairly handed over, the lock stays with the busy dispatching thread. */
    private static final String FAIR_THREADS = "--fair-sched=yes";

    /** The command line. */
    record Options(int warmUp, int commands, int runs, Path json) {
        static Options parse(List<String> args) {
            BenchCommand.Parsed line = command().parse(args);
            return new Options(
                    line.get("--warm-up", DEFAULT_WARM_UP),
                    line.get("--commands", DEFAULT_COMMANDS),
                    line.get("--runs", DEFAULT_RUNS),
                    line.get("--json", null));
        }

        static BenchCommand command() {
            return new BenchCommand("DispatchInstructions", USAGE)
                    .count("--warm-up", 0, DispatchDriver.MAX_COMMANDS)
                    .count("--commands", 1, DispatchDriver.MAX_COMMANDS)
                    .count("--runs", 2, MAX_RUNS)
                    .path("--json", "FILE");
        }
    }

    private DispatchInstructions() {}

    public static void main(String[] args) {
        Options options;
        try {
            options = Options.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("DispatchInstructions: " + e.getMessage());
            System.exit(2);
            return;
        }
        System.exit(Report.printRun("DispatchInstructions", options.json(), () -> run(options)));
    }

    static Report run(Options options) throws IOException, InterruptedException {
        Map<String, List<CallgrindParts>> windowsByKind = new LinkedHashMap<>();
        try (RunFolder run = new RunFolder("urom-dispatch");
                ChildProcesses children = new ChildProcesses()) {
            for (String kind : EndToEndBench.PLUGINS_BY_KIND.keySet()) {
                List<CallgrindParts> windows = new ArrayList<>();
                for (int r = 1; r <= options.runs(); r++) {
                    System.err.println(
                            "[dispatch] " + kind + " plugin under callgrind, run " + r + " of " + options.runs() + ": "
                                    + options.warmUp() + " LOOPBACKs, then " + options.commands() + " counted");
                    windows.add(window(
                            children, run.path().resolve(kind + "-" + r), kind, options.warmUp(), options.commands()));
                }
                windowsByKind.put(kind, windows);
            }
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("warmUp", options.warmUp());
        settings.put("commands", options.commands());
        settings.put("runs", options.runs());
        settings.put("driverJvmOptions", String.join(" ", DRIVER_JVM_OPTIONS));
        settings.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        return new Report(settings, figures(options.commands(), windowsByKind));
    }

    /**
     * Per plugin, C first: each run's instructions per command of the dispatching thread and of the
     * JVM's other threads in the window, the dispatching thread's mean over the runs (the Java
     * plugin's against the C plugin's) and the spread of the runs, (max - min) / mean.
     */
    static List<Figure> figures(int commands, Map<String, List<CallgrindParts>> windowsByKind) {
        List<Figure> figures = new ArrayList<>();
        double nativeMean = mean(perCommand(windowsByKind.get("native"), commands, true));
        for (String kind : List.of("native", "java")) {
            String plugin = PLUGIN_NAMES.get(kind);
            List<CallgrindParts> windows = windowsByKind.get(kind);
            List<Double> dispatching = perCommand(windows, commands, true);
            List<Double> others = perCommand(windows, commands, false);
            for (int r = 0; r < windows.size(); r++) {
                figures.add(Figure.plain(
                        "instructions_" + kind + "_run_" + (r + 1),
                        "instructions per command, " + plugin + ", run " + (r + 1) + ": dispatching thread",
                        dispatching.get(r),
                        "Ir"));
                figures.add(Figure.plain(
                        "instructions_" + kind + "_others_run_" + (r + 1),
                        "instructions per command, " + plugin + ", run " + (r + 1) + ": the JVM's other threads ("
                                + windows.get(r).otherThreads().size() + " ran)",
                        others.get(r),
                        "Ir"));
            }
            String meanLabel =
                    "instructions per command, " + plugin + ": dispatching thread, mean of " + windows.size() + " runs";
            double mean = mean(dispatching);
            figures.add(
                    kind.equals("native")
                            ? Figure.plain("instructions_native", meanLabel, mean, "Ir")
                            : Figure.compared(
                                    "instructions_java",
                                    meanLabel,
                                    mean,
                                    "Ir",
                                    PLUGIN_NAMES.get("native"),
                                    nativeMean));
            figures.add(Figure.plain(
                    "instructions_" + kind + "_spread",
                    "spread of the runs, " + plugin + ": dispatching thread",
                    spreadPercent(dispatching),
                    "%"));
        }
        return figures;
    }

    /** Each window's instructions per command, of the dispatching thread or of all the others. */
    static List<Double> perCommand(List<CallgrindParts> windows, int commands, boolean dispatchingThread) {
        return windows.stream()
                .map(w -> (dispatchingThread ? w.windowInstructions() : w.otherInstructions()) / (double) commands)
                .toList();
    }

    static double mean(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    /** (max - min) / mean, in percent; 0 when all are 0. */
    static double spreadPercent(List<Double> values) {
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double mean = mean(values);
        return mean == 0 ? 0 : (max - min) / mean * 100;
    }

    /**
     * valgrind's command line, up to the program it runs, for a count of the {@link CallgrindWindow}
     * with its output files in {@code folder}, as {@link CallgrindParts#read} reads them.
     */
    static List<String> callgrind(Path folder) {
        List<String> command = new ArrayList<>(List.of(
                System.getProperty(VALGRIND_PROPERTY, "valgrind"),
                "--tool=callgrind",
                PRECISE_FAULTS,
                SELF_MODIFYING_CODE,
                FAIR_THREADS));
        command.addAll(WINDOW_ONLY);
        command.add("--callgrind-out-file=" + folder.resolve("callgrind.%p.out"));
        return command;
    }

    /** Runs the driver under callgrind with its output in {@code folder}; answers what it counted in the window. */
    private static CallgrindParts window(ChildProcesses children, Path folder, String kind, int warmUp, int commands)
            throws IOException, InterruptedException {
        Files.createDirectories(folder);
        List<String> command = new ArrayList<>(callgrind(folder));
        String valgrind = command.get(0);
        command.add(JavaCommand.java());
        command.addAll(DRIVER_JVM_OPTIONS);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                DispatchDriver.class.getName(),
                kind,
                Integer.toString(warmUp),
                Integer.toString(commands)));
        Path log = folder.resolve("valgrind.log");
        Process process;
        try {
            process = children.start(
                    new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + valgrind + " (Debian's valgrind): " + e.getMessage());
        }
        process.getOutputStream().close();
        int status = process.waitFor();
        String output = Files.readString(log, StandardCharsets.UTF_8);
        if (status != 0 || !output.contains("dispatched " + ((long) warmUp + commands))) {
            throw new IllegalStateException("DispatchDriver " + kind + " under callgrind ended with status " + status
                    + ": " + lastLine(output) + " (all of it in " + log + ")");
        }
        CallgrindParts window = CallgrindParts.read(folder);
        System.err.println(String.format(
                Locale.ROOT,
                "[dispatch]   dispatching thread %d: %d Ir; %d other threads: %d Ir",
                window.windowThread(),
                window.windowInstructions(),
                window.otherThreads().size(),
                window.otherInstructions()));
        return window;
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines[lines.length - 1];
    }
}
