// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The soak's curves over time: {@code FILE.json} gets {@code FILE-soak.png} beside it ({@link
 * #pathFor}), one chart of {@link Plots#overTime} panels against minutes since the long-lived
 * worker started: resident sets (MiB), descriptors and threads, the daemon's children (zombies and
 * live workers), temp files, log files (with the worker logs' cap) and log sizes (KiB). Its
 * subtitle is the run's verdict.
 *
 * <p>Stateless. {@link #write} never throws: a chart that cannot be drawn is one line on stderr.
 */
final class SoakChart {
    static final String SUFFIX = "-soak.png";

    private SoakChart() {}

    /** Where the chart of the JSON document {@code json} goes. */
    static Path pathFor(Path json) {
        return Plots.nextTo(json, SUFFIX);
    }

    /** Draws the chart of {@code result} next to {@code json}; false when it failed. */
    static boolean write(String program, Path json, SoakBench.Result result) {
        Path png = pathFor(json);
        return Plots.render(
                program,
                png,
                () -> Plots.overTime(
                        png,
                        program + ": " + result.samples().size() + " samples, " + result.cycles() + " cycles, "
                                + result.workersStarted() + " workers started",
                        verdict(result),
                        "minutes since start",
                        panels(result.samples())));
    }

    /** The panels, in the order the class comment gives. */
    static List<Plots.Panel> panels(List<SoakBench.Sample> samples) {
        double[] minutes = values(samples, s -> s.seconds() / 60);
        return List.of(
                new Plots.Panel(
                        "resident set, MiB",
                        List.of(
                                line("daemon RSS", minutes, samples, s -> s.daemonRssKb() / 1024.0),
                                line("long-lived worker RSS", minutes, samples, s -> s.workerRssKb() / 1024.0))),
                new Plots.Panel(
                        "descriptors, threads",
                        List.of(
                                line("daemon fds", minutes, samples, SoakBench.Sample::daemonFds),
                                line("daemon threads", minutes, samples, SoakBench.Sample::daemonThreads),
                                line("worker fds", minutes, samples, SoakBench.Sample::workerFds),
                                line("worker threads", minutes, samples, SoakBench.Sample::workerThreads))),
                new Plots.Panel(
                        "daemon's children",
                        List.of(
                                line("zombies", minutes, samples, SoakBench.Sample::zombies),
                                line("live workers", minutes, samples, SoakBench.Sample::liveWorkers))),
                new Plots.Panel(
                        "temp files",
                        List.of(line("temp and socket folder entries", minutes, samples, SoakBench.Sample::tempFiles))),
                new Plots.Panel(
                        "log files",
                        List.of(
                                line("log files", minutes, samples, SoakBench.Sample::logFiles),
                                line("worker log files", minutes, samples, SoakBench.Sample::workerLogFiles),
                                line("worker log files' cap", minutes, samples, SoakBench.Sample::workerLogCap))),
                new Plots.Panel(
                        "log size, KiB",
                        List.of(
                                line("all logs", minutes, samples, s -> s.logBytes() / 1024.0),
                                line("worker logs", minutes, samples, s -> s.workerLogBytes() / 1024.0),
                                line("daemon log", minutes, samples, s -> s.daemonLogBytes() / 1024.0))));
    }

    private static String verdict(SoakBench.Result result) {
        return result.passed()
                ? "every series bounded, no errors"
                : "FAILED: " + (result.errors() > 0 ? result.errors() + " errors; " : "") + "growing: "
                        + result.growing();
    }

    private static Plots.Line line(
            String name, double[] minutes, List<SoakBench.Sample> samples, ToDoubleFunction<SoakBench.Sample> value) {
        return new Plots.Line(name, minutes, values(samples, value));
    }

    private static double[] values(List<SoakBench.Sample> samples, ToDoubleFunction<SoakBench.Sample> value) {
        return samples.stream().mapToDouble(value).toArray();
    }
}
