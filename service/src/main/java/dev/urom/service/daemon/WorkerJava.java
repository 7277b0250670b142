// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The {@code java} launcher that workers are started with: an execute-only copy (mode 0111) of this
 * JVM's {@code bin/java} in the daemon's work directory, beside links to the rest of the JDK.
 *
 * <p>Why: the kernel makes a process that executes a file it may not read undumpable from its first
 * instruction ({@code execve}, "would_dump"), and an undumpable process is closed to every other
 * process of its uid: its {@code /proc/PID/mem}, {@code environ} and descriptors cannot be opened
 * and {@code ptrace} cannot attach. The JVM needs no read access to its launcher; it finds its home
 * through the links ({@code java.home} stays the real JDK). A worker the kernel leaves dumpable (a
 * root worker, who reads every file; a launcher that could not be copied) makes itself undumpable as
 * it starts ({@code ProcessPrivacy}), which leaves the first milliseconds of its start open.
 *
 * <p>Stateless; failures fall back to the JDK's own launcher with a warning, never throw.
 */
final class WorkerJava {
    private static final Logger LOG = LogManager.getLogger(WorkerJava.class);

    private WorkerJava() {}

    /** This JVM's own launcher. */
    static Path jdkLauncher() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /**
     * Makes {@code <workRoot>/jdk}: {@code bin/java} copied execute-only, every other entry of the
     * JDK's home a symbolic link to it.
     *
     * @return the launcher to start workers with: the copy, or the JDK's own when the copy cannot be
     *     made or executed (a work directory on a file system mounted {@code noexec})
     */
    static Path prepare(Path workRoot) {
        Path home = Path.of(System.getProperty("java.home")).toAbsolutePath();
        Path copy = workRoot.resolve("jdk").resolve("bin").resolve("java");
        try {
            Path jdk = Files.createDirectory(workRoot.resolve("jdk"));
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(home)) {
                for (Path entry : entries) {
                    if (!entry.getFileName().toString().equals("bin")) {
                        Files.createSymbolicLink(jdk.resolve(entry.getFileName().toString()), entry);
                    }
                }
            }
            Files.createDirectory(jdk.resolve("bin"));
            Files.copy(jdkLauncher(), copy);
            Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("--x--x--x"));
            Files.setPosixFilePermissions(jdk.resolve("bin"), PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(jdk, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn(
                    "cannot make the workers' execute-only java in {} ({}); workers start from {} and make themselves undumpable as they start",
                    workRoot,
                    e.toString(),
                    jdkLauncher());
            return jdkLauncher();
        }
        if (!Files.isExecutable(copy)) {
            LOG.warn(
                    "{} cannot be executed (is {} on a file system mounted noexec?); workers start from {} and make themselves undumpable "
                            + "as they start",
                    copy,
                    workRoot.getParent(),
                    jdkLauncher());
            return jdkLauncher();
        }
        return copy;
    }
}
