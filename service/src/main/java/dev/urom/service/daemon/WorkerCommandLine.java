package dev.urom.service.daemon;

import dev.urom.framework.worker.PluginSpec;
import dev.urom.nativebridge.NativeArtifacts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Builds a worker's command line: {@code java <jvm options> -cp <the daemon's class path>
 * [-Durom.native.dir=DIR] <main class> --worker-id ID --gid G --listen ADDR --log-dir DIR
 * --log-level N --sdk-log-level N --max-msg-size BYTES [--cpus 0,2] --idle-timeout-ms MS
 * PATH:ID...}, plugins last so that {@code ps} shows them. Ids are unsigned decimal. Immutable.
 *
 * <p>Two JVM options are always added: the JVM's own warnings go to stderr (stdout carries only
 * the worker's READY or FAILED line), and a fatal error report (a native plugin that crashes
 * takes the JVM down with SIGABRT after writing it) goes to {@link #crashReport} in the log
 * directory rather than the daemon's working directory.
 */
final class WorkerCommandLine {
    private final DaemonConfig config;
    private final String java;
    private final String classPath;
    private final String nativeDir;

    WorkerCommandLine(DaemonConfig config) {
        this.config = config;
        this.java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        this.classPath = System.getProperty("java.class.path");
        this.nativeDir = System.getProperty(NativeArtifacts.NATIVE_DIR_PROPERTY);
    }

    List<String> build(long workerId, long gid, String listen, List<Integer> cpus, List<PluginSpec> plugins) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xlog:disable");
        command.add("-Xlog:all=warning:stderr");
        command.add("-XX:ErrorFile=" + config.logDir().resolve("urom_worker_%p_crash.log"));
        command.addAll(config.workerJvmOptions());
        command.add("-cp");
        command.add(classPath);
        if (nativeDir != null && !nativeDir.isBlank()) {
            command.add("-D" + NativeArtifacts.NATIVE_DIR_PROPERTY + "=" + nativeDir);
        }
        command.add(config.workerMainClass());
        add(command, "--worker-id", Long.toUnsignedString(workerId));
        add(command, "--gid", Long.toUnsignedString(gid));
        add(command, "--listen", listen);
        add(command, "--log-dir", config.logDir().toString());
        add(command, "--log-level", Integer.toString(config.logLevel()));
        add(command, "--sdk-log-level", Integer.toString(config.sdkLogLevel()));
        add(command, "--max-msg-size", Integer.toString(config.maxMessageSize()));
        if (!cpus.isEmpty()) {
            add(command, "--cpus", cpus.stream().map(String::valueOf).collect(Collectors.joining(",")));
        }
        add(command, "--idle-timeout-ms", Long.toString(config.workerIdleTimeout().toMillis()));
        for (PluginSpec plugin : plugins) {
            command.add(plugin.toString());
        }
        return command;
    }

    /** Where the JVM of worker process {@code pid} writes its fatal error report. */
    static Path crashReport(Path logDir, long pid) {
        return logDir.resolve("urom_worker_" + pid + "_crash.log");
    }

    private static void add(List<String> command, String option, String value) {
        command.add(option);
        command.add(value);
    }
}
