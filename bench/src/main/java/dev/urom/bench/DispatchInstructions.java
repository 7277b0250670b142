package dev.urom.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Instructions per command of the in-process dispatch, C plugin against Java plugin, counted by
 * valgrind's callgrind, which is repeatable whatever else the machine runs: {@code java -cp
 * bench/target/benchmarks.jar dev.urom.bench.DispatchInstructions [--warm-up N] [--commands A,B]
 * [--json FILE]}.
 *
 * <p>For each plugin, {@link DispatchDriver} runs in a JVM of its own under {@code valgrind
 * --tool=callgrind} twice: {@code --warm-up} LOOPBACKs and then {@code A}, and the same warm-up and
 * then {@code B}. Everything both runs share (the JVM's start, loading the plugin, the warm-up and its
 * JIT compilation, the exit) cancels out of {@code (Ir(B) - Ir(A)) / (B - A)}, the instructions of
 * every thread of the process per command, once warm: the real, JIT-compiled path. With more than two
 * counts, each step between successive counts is a row of its own; steps that agree say the commands
 * ran in a steady state (compiled) rather than while the JIT was still at work.
 *
 * <p>valgrind runs with exact registers at memory accesses and checks all code for changes, which
 * HotSpot's compiled code needs; it slows valgrind, not what it counts. valgrind is {@code valgrind} on the PATH, or system property {@value #VALGRIND_PROPERTY}. Exit
 * status 0, 1 with one line on stderr when a run fails, 2 on a usage error.
 */
public final class DispatchInstructions {
    static final String VALGRIND_PROPERTY = "urom.bench.valgrind";
    static final int DEFAULT_WARM_UP = 20_000;
    static final List<Integer> DEFAULT_COMMANDS = List.of(10_000, 30_000);
    static final String USAGE = "usage: DispatchInstructions [--warm-up N (default " + DEFAULT_WARM_UP + ")] [--commands A,B[,C...] (default "
            + DEFAULT_COMMANDS.get(0) + "," + DEFAULT_COMMANDS.get(1) + ")] [--json FILE]";
    private static final String SUMMARY = "summary:";
    /**
     * HotSpot turns the SIGSEGV of an implicit null check or a safepoint poll into its own work by
     * the faulting instruction's address: without registers exact at every memory access, valgrind
     * reports the start of its block instead and the JVM dies of a SIGSEGV in compiled code.
     */
    private static final String PRECISE_FAULTS = "--vex-iropt-register-updates=allregs-at-mem-access";
    /** The JIT patches compiled code in place. */
    private static final String SELF_MODIFYING_CODE = "--smc-check=all";

    /** The command line. */
    record Options(int warmUp, List<Integer> commands, Path json) {
        static Options parse(List<String> args) {
            int[] warmUp = {DEFAULT_WARM_UP};
            List<Integer> commands = new ArrayList<>(DEFAULT_COMMANDS);
            Path[] json = {null};
            OptionPairs.parse(args, List.of("--warm-up", "--commands", "--json"), USAGE, (option, value) -> {
                switch (option) {
                    case "--warm-up" -> warmUp[0] = OptionPairs.count(option, value, 0, DispatchDriver.MAX_COMMANDS);
                    case "--commands" -> {
                        commands.clear();
                        for (String count : value.split(",", -1)) {
                            int next = OptionPairs.count(option, count, 0, DispatchDriver.MAX_COMMANDS);
                            if (!commands.isEmpty() && next <= commands.get(commands.size() - 1)) {
                                throw new IllegalArgumentException(option + " '" + value + "' does not grow from count to count");
                            }
                            commands.add(next);
                        }
                        if (commands.size() < 2) {
                            throw new IllegalArgumentException(option + " '" + value + "' needs two counts at least");
                        }
                    }
                    default -> json[0] = Path.of(value);
                }
            });
            return new Options(warmUp[0], List.copyOf(commands), json[0]);
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
        Map<String, List<Long>> instructionsByKind = new LinkedHashMap<>();
        try (RunFolder run = new RunFolder("urom-dispatch"); ChildProcesses children = new ChildProcesses()) {
            for (String kind : EndToEndBench.PLUGINS_BY_KIND.keySet()) {
                List<Long> counted = new ArrayList<>();
                for (int commands : options.commands()) {
                    System.err.println("[dispatch] " + kind + " plugin under callgrind: " + options.warmUp() + " + " + commands + " LOOPBACKs");
                    counted.add(instructions(children, run.path().resolve(kind + "-" + commands), kind, options.warmUp(), commands));
                }
                instructionsByKind.put(kind, counted);
            }
        }
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("warmUp", options.warmUp());
        settings.put("commands", options.commands().toString());
        settings.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        return new Report(settings, figures(options.commands(), instructionsByKind));
    }

    /**
     * One row per step between successive counts and plugin: the Java plugin's instructions per
     * command against the C plugin's of the same step.
     */
    static List<Figure> figures(List<Integer> commands, Map<String, List<Long>> instructionsByKind) {
        List<Figure> figures = new ArrayList<>();
        for (int step = 1; step < commands.size(); step++) {
            String between = commands.get(step - 1) + " to " + commands.get(step);
            double nativePerCommand = perCommand(commands, instructionsByKind.get("native"), step);
            double javaPerCommand = perCommand(commands, instructionsByKind.get("java"), step);
            String suffix = step == 1 ? "" : "_" + step;
            figures.add(Figure.plain("instructions_native" + suffix, "instructions per command, C plugin (" + between + ")",
                    nativePerCommand, "Ir"));
            figures.add(Figure.compared("instructions_java" + suffix, "instructions per command, Java plugin (" + between + ")",
                    javaPerCommand, "Ir", "C plugin", nativePerCommand));
        }
        return figures;
    }

    /** (Ir after {@code step} - Ir after the step before) / the commands in between. */
    static double perCommand(List<Integer> commands, List<Long> instructions, int step) {
        return (instructions.get(step) - instructions.get(step - 1)) / (double) (commands.get(step) - commands.get(step - 1));
    }

    /** Runs the driver under callgrind with its output in {@code folder}; answers the instructions it counted. */
    private static long instructions(ChildProcesses children, Path folder, String kind, int warmUp, int commands)
            throws IOException, InterruptedException {
        Files.createDirectories(folder);
        String valgrind = System.getProperty(VALGRIND_PROPERTY, "valgrind");
        List<String> command = List.of(valgrind, "--tool=callgrind", PRECISE_FAULTS, SELF_MODIFYING_CODE,
                "--callgrind-out-file=" + folder.resolve("callgrind.%p.out"),
                JavaCommand.java(), "-cp", System.getProperty("java.class.path"), DispatchDriver.class.getName(), kind,
                Integer.toString(warmUp), Integer.toString(commands));
        Path log = folder.resolve("valgrind.log");
        Process process;
        try {
            process = children.start(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()));
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + valgrind + " (Debian's valgrind): " + e.getMessage());
        }
        process.getOutputStream().close();
        int status = process.waitFor();
        String output = Files.readString(log, StandardCharsets.UTF_8);
        if (status != 0 || !output.contains("dispatched " + ((long) warmUp + commands))) {
            throw new IllegalStateException("DispatchDriver " + kind + " under callgrind ended with status " + status + ": "
                    + lastLine(output) + " (all of it in " + log + ")");
        }
        long total = 0;
        try (DirectoryStream<Path> outputs = Files.newDirectoryStream(folder, "callgrind.*.out")) {
            for (Path file : outputs) {
                total += summary(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
            }
        }
        return total;
    }

    /** The instructions (the first event) of a callgrind output file's {@code summary:} line. */
    static long summary(List<String> lines, String file) {
        for (String line : lines) {
            if (line.startsWith(SUMMARY)) {
                String[] events = line.substring(SUMMARY.length()).trim().split(" ");
                try {
                    return Long.parseLong(events[0]);
                } catch (NumberFormatException e) {
                    throw new IllegalStateException(file + ": '" + line + "' does not count instructions");
                }
            }
        }
        throw new IllegalStateException(file + " has no '" + SUMMARY + "' line: not a finished callgrind output");
    }

    private static String lastLine(String text) {
        String[] lines = text.strip().split("\n");
        return lines[lines.length - 1];
    }
}
