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
 * untouched. Stateless.
 */
public final class LogDirectoryCheck implements Check {
    static final String NAME = "log directory";

    private final Path logDir;

    public LogDirectoryCheck(Path logDir) {
        this.logDir = logDir.toAbsolutePath().normalize();
    }

    @Override
    public CheckResult run() {
        String problem = problem();
        if (problem != null) {
            return CheckResult.failed(NAME, problem,
                    "create it and give the daemon's user write access (sudo mkdir -p " + logDir + " && sudo chown $USER " + logDir
                            + "), or pass --log-dir; otherwise the daemon logs to the fallback " + ServiceLogging.fallbackDir().toAbsolutePath());
        }
        Path log = logDir.resolve(ServiceLogging.DAEMON_LOG_FILE);
        return CheckResult.passed(NAME, (Files.isDirectory(logDir) ? logDir + " is writable" : logDir + " can be created")
                + "; if the daemon (or its container) exits at once, read " + log);
    }

    private String problem() {
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
