// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.nativebridge.NativeArtifacts;
import dev.urom.service.os.ChannelDescriptors;
import dev.urom.service.process.WorkerLaunch;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Builds a worker's command line: the launcher and its options ({@link WorkerRuntime#launcherOptions}:
 * the listening socket it binds, the worker's directory, the user it drops to), then the java of
 * {@link WorkerRuntime#java()} (the execute-only copy) and {@code <jvm options> -cp <the daemon's
 * class path, made absolute> -Durom.native.dir=DIR <main class>}, then the worker's own arguments
 * ({@link WorkerLaunch#toArgv()}: the listening socket on descriptor 0, the daemon's pipe on 3, the
 * daemon's limits, plugins last). Immutable.
 *
 * <p>JVM options always added:
 *
 * <ul>
 *   <li>the JVM's own warnings and any other output of the JVM itself go to stderr: stdout carries
 *       only the worker's READY or FAILED line (a class-data archive the JVM refuses is such a
 *       warning);
 *   <li>a fatal error report goes to {@link #crashReport} in the log directory rather than the
 *       daemon's working directory (a native plugin that crashes takes the JVM down with SIGABRT
 *       after writing it);
 *   <li>Log4j2 registers no JMX beans: a worker has no use for them, and they cost start-up time;
 *   <li>the class-data-sharing option of {@link WorkerClassData};
 *   <li>the worker's private directory as its Java and JNA temporary directory, with JNA pinned to
 *       the daemon's {@code libjnidispatch.so} (never unpacked, never taken from the system);
 *   <li>{@link ChannelDescriptors#JVM_OPTION}, the export of {@code sun.nio.ch} through which the
 *       worker reaches the descriptor of each host connection, to learn the process at its other
 *       end.
 * </ul>
 *
 * <p>Thread-safe.
 */
final class WorkerCommandLine {
    /** A worker's command line and its class-data launch, told when that worker has exited. */
    record Launch(List<String> command, WorkerClassData.Launch classData) {
        /** The worker's exit status, or a negative number when it could not be started. */
        void exited(int exitStatus) {
            classData.exited(exitStatus);
        }
    }

    /** A worker's fatal error report in the log directory; the JVM puts the pid for {@code %p}. */
    private static final String CRASH_REPORT = "urom_worker_%p_crash.log";
    /** Where the launcher puts the listening socket it binds: stdin. */
    private static final int LISTEN_FD = 0;
    /** Where the launcher moves the daemon's pipe. */
    private static final int DAEMON_FD = 3;

    private final DaemonConfig config;
    private final WorkerRuntime runtime;
    private final String java;
    private final String classPath;
    private final String nativeDir;
    private final WorkerClassData classData;

    WorkerCommandLine(DaemonConfig config, WorkerRuntime runtime) {
        this(config, runtime, WorkerClassData.forThisJvm(config.workerJvmOptions(), runtime.otherUsers()));
    }

    WorkerCommandLine(DaemonConfig config, WorkerRuntime runtime, WorkerClassData classData) {
        this.config = config;
        this.runtime = runtime;
        this.java = runtime.java().toString();
        this.classPath = absoluteClassPath(System.getProperty("java.class.path"));
        // Where this daemon found (or unpacked) the native files: workers reuse it rather than
        // unpacking their own copy each.
        this.nativeDir =
                NativeArtifacts.bridgeLibrary().getParent().toAbsolutePath().toString();
        this.classData = classData;
    }

    /**
     * {@code classPath} with every entry made absolute against this process's working directory
     * (an empty entry is that directory): a worker starts in its own directory.
     */
    static String absoluteClassPath(String classPath) {
        return Arrays.stream(classPath.split(File.pathSeparator, -1))
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    /**
     * @param account who the worker runs as
     * @param listen the launcher's options for the listening socket
     * @param workerDirectory the worker's private directory
     */
    Launch build(
            long workerId,
            long gid,
            UnixAccount account,
            List<String> listen,
            Path workerDirectory,
            List<Integer> cpus,
            List<PluginSpec> plugins) {
        WorkerClassData.Launch sharing = classData.nextLaunch(workerDirectory);
        List<String> command = new ArrayList<>(runtime.launcherOptions(listen, workerDirectory, account));
        command.add(java);
        command.add("-Xlog:disable");
        command.add("-Xlog:all=warning:stderr");
        command.add("-XX:+DisplayVMOutputToStderr");
        command.add("-XX:ErrorFile=" + workerDirectory.resolve(CRASH_REPORT));
        command.addAll(config.workerJvmOptions());
        command.addAll(sharing.jvmOptions());
        command.add("-Dlog4j2.disableJmx=true");
        command.add("-Djava.io.tmpdir=" + workerDirectory);
        command.add("-Djna.tmpdir=" + workerDirectory);
        command.add("-Djna.boot.library.path=" + runtime.jnaDirectory());
        command.add("-Djna.nosys=true");
        command.add("-Djna.nounpack=true");
        command.add(ChannelDescriptors.JVM_OPTION);
        command.add("-cp");
        command.add(classPath);
        command.add("-D" + NativeArtifacts.NATIVE_DIR_PROPERTY + "=" + nativeDir);
        command.add(config.workerMainClass());
        command.addAll(workerLaunch(workerId, gid, cpus, plugins).toArgv());
        return new Launch(List.copyOf(command), sharing);
    }

    /** The fatal error report of worker process {@code pid} in {@code dir}: the worker's directory, or the log directory it is copied to. */
    static Path crashReport(Path dir, long pid) {
        return dir.resolve(CRASH_REPORT.replace("%p", Long.toString(pid)));
    }

    /**
     * The worker's own arguments: it inherits its listening socket as descriptor 0 and the daemon's
     * pipe as 3 (the launcher puts them there). A worker serves only its owner, so its cap on host
     * connections is the daemon's cap per principal.
     */
    private WorkerLaunch workerLaunch(long workerId, long gid, List<Integer> cpus, List<PluginSpec> plugins) {
        BitSet cpuSet = new BitSet();
        cpus.forEach(cpuSet::set);
        DaemonSecurity security = config.security();
        return new WorkerLaunch(
                workerId,
                gid,
                null,
                LISTEN_FD,
                DAEMON_FD,
                config.logLevel(),
                config.sdkLogLevel(),
                config.maxMessageSize(),
                cpuSet,
                config.workerIdleTimeout().toMillis(),
                security.maxInflight(),
                security.maxConnectionsPerPrincipal(),
                security.handshakeTimeout().toMillis(),
                security.dumpableWorkers(),
                plugins);
    }
}
