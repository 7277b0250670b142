// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import dev.urom.nativebridge.NativeArtifacts;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts a Java main class of the test class path in a child JVM, the way the daemon starts a
 * worker: the test JVM's {@code java} and {@code java.class.path}. Tests destroy what they start.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /** The command line that runs {@code mainClass} with {@code args}. */
    public static List<String> command(Class<?> mainClass, List<String> jvmOptions, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Xshare:auto");
        // the test JVM's native files, as a daemon gives its workers: a child extracts none of its own
        command.add("-D" + NativeArtifacts.NATIVE_DIR_PROPERTY + "="
                + NativeArtifacts.launcherExecutable().getParent());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        return command;
    }

    /** Starts {@code mainClass}; stderr goes to the test's stderr, stdout and stdin are pipes. */
    public static Process start(Class<?> mainClass, List<String> args) throws IOException {
        return start(mainClass, List.of(), args, Map.of());
    }

    public static Process start(Class<?> mainClass, List<String> jvmOptions, List<String> args, Map<String, String> env)
            throws IOException {
        return start(mainClass, jvmOptions, args, env, null);
    }

    /** As {@link #start(Class, List)}, in working directory {@code workDir} (null: the test's). */
    public static Process start(
            Class<?> mainClass, List<String> jvmOptions, List<String> args, Map<String, String> env, Path workDir)
            throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command(mainClass, jvmOptions, args));
        if (workDir != null) {
            builder.directory(workDir.toFile());
        }
        builder.redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(env);
        return builder.start();
    }
}
