// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import dev.urom.service.logging.WorkerLogRetention;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Deletes the logs of ended workers from the log directory as a {@link WorkerLogRetention} says.
 * A worker's log is every file named {@code urom_worker_<pid>_dev.log}, {@code
 * urom_worker_<pid>_dev.log.<n>} (rolled) or {@code urom_worker_<pid>_crash.log}; its time is the
 * newest modification time among them. The logs of the pids given as running are never touched;
 * of the others, those older than the maximum age go, and of the rest the newest {@code
 * maxEndedWorkers} stay.
 *
 * <p>Only regular files (a symbolic link is not followed, nor deleted) owned by the given uid, with
 * names of exactly that form, are ever deleted; anything else in the directory is left alone. A
 * pass deletes at most {@value #MAX_DELETIONS_PER_PASS} files, oldest first, and says whether it
 * left some for the next pass. A file that cannot be read or deleted is reported (WARN) and
 * skipped.
 *
 * <p>Thread-safe: passes run one at a time.
 */
final class WorkerLogPruner {
    /** The most files one pass deletes, so that a pass on a crowded directory stays short. */
    static final int MAX_DELETIONS_PER_PASS = 256;

    private static final Logger LOG = LogManager.getLogger(WorkerLogPruner.class);
    private static final Pattern WORKER_LOG =
            Pattern.compile("urom_worker_([1-9][0-9]{0,18})_(?:dev\\.log(?:\\.[1-9][0-9]{0,2})?|crash\\.log)");

    private final Path logDir;
    private final WorkerLogRetention retention;
    private final int ownerUid;
    private final Clock clock;

    /**
     * @param ownerUid the uid whose files may be deleted: the daemon's own
     * @param clock what "now" is for the maximum age
     */
    WorkerLogPruner(Path logDir, WorkerLogRetention retention, int ownerUid, Clock clock) {
        this.logDir = requireNonNull(logDir, "logDir is null");
        this.retention = requireNonNull(retention, "retention is null");
        this.ownerUid = ownerUid;
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** What a pass did: the files it deleted, and whether more are due (it stopped at its limit). */
    record Pass(int deleted, boolean moreDue) {}

    /** One worker's files and the newest of their modification times. */
    private record WorkerLog(long pid, List<Path> files, Instant lastWritten) {}

    /** Deletes what is due, keeping the logs of {@code runningPids}. */
    synchronized Pass prune(Set<Long> runningPids) {
        List<WorkerLog> ended = endedWorkerLogs(runningPids);
        ended.sort(Comparator.comparing(WorkerLog::lastWritten).reversed());
        Instant oldestKept = clock.instant().minus(retention.maxAge());
        List<Path> due = new ArrayList<>();
        for (int i = ended.size() - 1; i >= 0; i--) {
            WorkerLog log = ended.get(i);
            if (i >= retention.maxEndedWorkers() || log.lastWritten().isBefore(oldestKept)) {
                due.addAll(log.files());
            }
        }
        int deleted = 0;
        for (Path file : due) {
            if (deleted == MAX_DELETIONS_PER_PASS) {
                return new Pass(deleted, true);
            }
            if (delete(file)) {
                deleted++;
            }
        }
        return new Pass(deleted, false);
    }

    private List<WorkerLog> endedWorkerLogs(Set<Long> runningPids) {
        Map<Long, List<Path>> files = new HashMap<>();
        Map<Long, Instant> lastWritten = new HashMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(logDir)) {
            for (Path entry : entries) {
                Matcher name = WORKER_LOG.matcher(entry.getFileName().toString());
                if (!name.matches()) {
                    continue;
                }
                long pid = Long.parseLong(name.group(1));
                if (runningPids.contains(pid)) {
                    continue;
                }
                BasicFileAttributes attributes = ours(entry);
                if (attributes != null) {
                    files.computeIfAbsent(pid, p -> new ArrayList<>()).add(entry);
                    lastWritten.merge(pid, attributes.lastModifiedTime().toInstant(), (a, b) -> a.isAfter(b) ? a : b);
                }
            }
        } catch (NoSuchFileException e) {
            // no log directory yet: nothing to prune
        } catch (IOException e) {
            LOG.warn("cannot list the log directory {} to prune ended workers' logs: {}", logDir, e.getMessage());
        }
        List<WorkerLog> logs = new ArrayList<>();
        files.forEach((pid, list) -> logs.add(new WorkerLog(pid, list, lastWritten.get(pid))));
        return logs;
    }

    /** The file's attributes when it is a regular file owned by {@link #ownerUid}, else null. */
    private BasicFileAttributes ours(Path file) {
        try {
            BasicFileAttributes attributes =
                    Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isRegularFile()) {
                return null;
            }
            Object uid = Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
            return Integer.valueOf(ownerUid).equals(uid) ? attributes : null;
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warn("cannot read the attributes of {}; it is not pruned: {}", file, e.getMessage());
            return null;
        }
    }

    private static boolean delete(Path file) {
        try {
            return Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete the ended worker's log {}: {}", file, e.getMessage());
            return false;
        }
    }
}
