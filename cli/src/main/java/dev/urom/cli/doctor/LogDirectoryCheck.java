// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import dev.urom.service.logging.ServiceLogging;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * Can the daemon write its logs? An existing directory must take a new file (one is created and
 * deleted); a missing one must be creatable under its nearest existing parent, which is left
 * untouched. A log directory the daemon cannot use is a WARN when the fallback directory it then
 * logs to ({@link ServiceLogging#fallbackDir}) is usable, and a FAIL only when neither is, since
 * then the daemon does not start. Stateless.
 */
public final class LogDirectoryCheck implements Check {
    static final String NAME = "log directory";

    private final Path logDir;
    private final Path fallbackDir;

    /** The check of {@code logDir}, with the daemon's own fallback directory. */
    public LogDirectoryCheck(Path logDir) {
        this(logDir, ServiceLogging.fallbackDir());
    }

    /** The check of {@code logDir}, whose fallback (where the daemon logs when it cannot use it) is {@code fallbackDir}. */
    public LogDirectoryCheck(Path logDir, Path fallbackDir) {
        this.logDir = logDir.toAbsolutePath().normalize();
        this.fallbackDir = fallbackDir.toAbsolutePath().normalize();
    }

    @Override
    public CheckResult run() {
        String problem = problem(logDir);
        if (problem == null) {
            Path log = logDir.resolve(ServiceLogging.DAEMON_LOG_FILE);
            return CheckResult.passed(
                    NAME,
                    (Files.isDirectory(logDir) ? logDir + " is writable" : logDir + " can be created")
                            + "; if the daemon (or its container) exits at once, read " + log);
        }
        String advice = "to log there, create it and give the daemon's user write access (sudo mkdir -p " + logDir
                + " && sudo chown $USER " + logDir + "), or pass --log-dir DIR to both urom doctor and urom daemon";
        String fallbackProblem = problem(fallbackDir);
        if (fallbackProblem != null) {
            return CheckResult.failed(
                    NAME,
                    problem + ", and the daemon's fallback cannot be used either: " + fallbackProblem
                            + "; the daemon would not start",
                    advice);
        }
        return CheckResult.warned(
                NAME,
                problem + "; the daemon logs to its fallback " + fallbackDir.resolve(ServiceLogging.DAEMON_LOG_FILE)
                        + " instead",
                advice);
    }

    private static String problem(Path logDir) {
        if (Files.isDirectory(logDir)) {
            try {
                Path probe = Files.createTempFile(logDir, ".urom-doctor-", ".tmp");
                Files.delete(probe);
                return null;
            } catch (IOException e) {
                return logDir + " is not writable: " + e;
            }
        }
        if (Files.exists(logDir, LinkOption.NOFOLLOW_LINKS)) {
            return logDir + " exists and is not a directory";
        }
        Path parent = logDir.getParent();
        while (parent != null && !Files.exists(parent)) {
            parent = parent.getParent();
        }
        if (parent == null || !Files.isDirectory(parent)) {
            return logDir + " cannot be created: " + parent + " is not a directory";
        }
        if (!Files.isWritable(parent) || !Files.isExecutable(parent)) {
            return logDir + " cannot be created: " + parent + " is not writable";
        }
        return null;
    }
}
