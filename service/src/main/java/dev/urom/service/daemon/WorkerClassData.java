// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The class-data-sharing archive of the worker JVMs (a JDK dynamic AppCDS archive): which option a
 * worker gets so that it maps the classes it needs instead of loading them (measured: worker JVM to
 * READY 725 ms without, 427 ms with the archive, median of 7 on the shared 2-core machine).
 *
 * <p>One archive per (JVM build, class path with each jar's size and modification time, worker JVM
 * options), named {@code worker-<hash>.jsa} in a cache directory that outlives the daemon ({@code
 * ${java.io.tmpdir}/urom-<user>/cds} by default, not the daemon's run directory, which is deleted
 * with the daemon and exists only with a Unix-socket listener). A rebuilt jar changes the hash, so
 * a stale archive is never chosen; should the JVM refuse one all the same, {@code -Xshare:auto}
 * makes it start without, with a warning on stderr.
 *
 * <p>While the archive is missing, one worker at a time is launched with {@code
 * -XX:ArchiveClassesAtExit=<a file in the worker's own directory>}: the JVM writes the archive when
 * that worker exits; when it exited with status 0 the daemon copies the file into the cache (so the
 * archive is the daemon's, mode 0644, whoever the worker ran as) and moves it into place atomically.
 * After {@value #MAX_FAILED_DUMPS} failed dumps this daemon stops trying. Workers started while a
 * dump is in progress get no archive option.
 *
 * <p>Archives of other builds pile up in the cache (about 10 MB each): each daemon start marks its
 * own archive as used (its modification time) and deletes the archives, and unfinished dumps, that
 * nothing has marked for {@link #UNUSED_AGE} (a JVM that has one mapped keeps its pages).
 *
 * <p>Off (every launch without options) when the class path holds anything but jar files (a
 * directory cannot be archived), when the worker JVM options already choose class sharing, or when
 * the cache directory is not a directory of this user that only this user can write (an archive
 * is code the worker runs). When workers run as another user, the cache directory and its parent
 * are made readable by others (0755), so that they can map the archive.
 *
 * <p>Thread-safe. File-system failures are logged and turn into launches without an archive; no
 * method throws for them.
 */
final class WorkerClassData {
    static final int MAX_FAILED_DUMPS = 2;
    /** How long an archive no daemon has started with is kept. */
    static final Duration UNUSED_AGE = Duration.ofDays(7);

    private static final Logger LOG = LogManager.getLogger(WorkerClassData.class);
    private static final AtomicLong TEMPORARY_FILES = new AtomicLong();

    /** The JVM options of one worker launch, and what to do when that worker has exited. */
    interface Launch {
        List<String> jvmOptions();

        /** Called once, with the worker's exit status (negative when it never started). */
        void exited(int exitStatus);
    }

    /** A launch with fixed options and nothing to do at its exit. */
    private record Fixed(List<String> jvmOptions) implements Launch {
        @Override
        public void exited(int exitStatus) {}
    }

    private static final Launch PLAIN = new Fixed(List.of());

    private final Path archive;
    private final String offReason;
    private boolean dumping;
    private int failedDumps;

    private WorkerClassData(Path archive, String offReason) {
        this.archive = archive;
        this.offReason = offReason;
    }

    /**
     * The archive of workers that run with this JVM, its class path and {@code workerJvmOptions}.
     *
     * @param readableByOthers whether workers run as another user, who must be able to map the archive
     */
    static WorkerClassData forThisJvm(List<String> workerJvmOptions, boolean readableByOthers) {
        return of(
                defaultCacheDir(),
                System.getProperty("java.home") + "|" + System.getProperty("java.vm.version"),
                System.getProperty("java.class.path"),
                workerJvmOptions,
                readableByOthers);
    }

    /**
     * @param cacheDir where archives are kept, created when missing (owner-only, or 0755 with its
     *     parent when {@code readableByOthers})
     * @param jvmBuild names the JVM build the archive is for
     * @param classPath the workers' class path ({@link File#pathSeparator}-separated)
     */
    static WorkerClassData of(
            Path cacheDir, String jvmBuild, String classPath, List<String> workerJvmOptions, boolean readableByOthers) {
        for (String option : workerJvmOptions) {
            if (option.startsWith("-Xshare:off")
                    || option.contains("SharedArchiveFile")
                    || option.contains("ArchiveClassesAtExit")) {
                return off("the worker JVM options choose class sharing themselves (" + option + ")");
            }
        }
        StringBuilder key = new StringBuilder(jvmBuild)
                .append('\n')
                .append(String.join(" ", workerJvmOptions))
                .append('\n');
        if (classPath == null || classPath.isBlank()) {
            return off("the class path is empty");
        }
        for (String entry : classPath.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            Path jar = Path.of(entry).toAbsolutePath();
            if (!Files.isRegularFile(jar) || !entry.endsWith(".jar")) {
                return off("class path entry " + entry + " is not a jar file");
            }
            try {
                key.append(jar)
                        .append(' ')
                        .append(Files.size(jar))
                        .append(' ')
                        .append(Files.getLastModifiedTime(jar).toMillis())
                        .append('\n');
            } catch (IOException e) {
                return off("cannot read class path entry " + entry + ": " + e);
            }
        }
        String problem = prepareCacheDir(cacheDir, readableByOthers);
        if (problem != null) {
            return off(problem);
        }
        Path archive = cacheDir.resolve("worker-" + hash(key.toString()) + ".jsa");
        markUsedAndPrune(archive, Instant.now());
        return new WorkerClassData(archive, null);
    }

    /** Marks {@code archive} (when present) as used at {@code now}; deletes its siblings unused for {@link #UNUSED_AGE}. */
    static void markUsedAndPrune(Path archive, Instant now) {
        try {
            if (Files.isRegularFile(archive, LinkOption.NOFOLLOW_LINKS)) {
                Files.setLastModifiedTime(archive, FileTime.from(now));
            }
        } catch (IOException e) {
            LOG.debug("cannot mark the class-data archive {} as used: {}", archive, e.getMessage());
        }
        Instant oldest = now.minus(UNUSED_AGE);
        try (DirectoryStream<Path> siblings = Files.newDirectoryStream(archive.getParent(), "worker-*.jsa*")) {
            for (Path sibling : siblings) {
                if (!sibling.equals(archive)
                        && Files.isRegularFile(sibling, LinkOption.NOFOLLOW_LINKS)
                        && Files.getLastModifiedTime(sibling, LinkOption.NOFOLLOW_LINKS)
                                .toInstant()
                                .isBefore(oldest)) {
                    Files.deleteIfExists(sibling);
                    LOG.info("deleted the class-data archive {}: unused for {} days", sibling, UNUSED_AGE.toDays());
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot prune old class-data archives next to {}: {}", archive, e.getMessage());
        }
    }

    /** {@code ${java.io.tmpdir}/urom-<user>/cds}. */
    static Path defaultCacheDir() {
        return Path.of(System.getProperty("java.io.tmpdir"), "urom-" + System.getProperty("user.name"), "cds");
    }

    /** The archive file, or null when class sharing is off. */
    Path archive() {
        return archive;
    }

    /** Why class sharing is off, or null when it is on. */
    String offReason() {
        return offReason;
    }

    /**
     * The options of the next worker launch; see the class comment.
     *
     * @param workerDirectory the worker's own directory, where a dump is written
     */
    Launch nextLaunch(Path workerDirectory) {
        if (archive == null) {
            return PLAIN;
        }
        if (Files.isRegularFile(archive)) {
            return new Fixed(List.of("-XX:SharedArchiveFile=" + archive));
        }
        synchronized (this) {
            if (dumping || failedDumps >= MAX_FAILED_DUMPS) {
                return PLAIN;
            }
            dumping = true;
        }
        Path dumped = workerDirectory.resolve("classes.jsa");
        // The JVM reports every class it leaves out as a [cds] warning: keep only errors of the dump.
        return new Dump(dumped, List.of("-XX:ArchiveClassesAtExit=" + dumped, "-Xlog:cds*=error:stderr"));
    }

    private final class Dump implements Launch {
        private final Path dumped;
        private final Path temporary;
        private final List<String> options;
        private boolean done;

        Dump(Path dumped, List<String> options) {
            this.dumped = dumped;
            this.temporary = archive.resolveSibling(archive.getFileName() + "."
                    + ProcessHandle.current().pid() + "-" + TEMPORARY_FILES.incrementAndGet() + ".tmp");
            this.options = options;
        }

        @Override
        public List<String> jvmOptions() {
            return options;
        }

        @Override
        public void exited(int exitStatus) {
            synchronized (WorkerClassData.this) {
                if (done) {
                    return;
                }
                done = true;
            }
            boolean installed = exitStatus == 0 && install();
            if (!installed) {
                deleteQuietly(temporary);
            }
            deleteQuietly(dumped);
            synchronized (WorkerClassData.this) {
                dumping = false;
                if (!installed) {
                    failedDumps++;
                }
            }
        }

        private boolean install() {
            try {
                if (!Files.isRegularFile(dumped, LinkOption.NOFOLLOW_LINKS) || Files.size(dumped) == 0) {
                    LOG.warn(
                            "the worker that was to write the class-data archive {} exited without writing it", dumped);
                    return false;
                }
                Files.copy(dumped, temporary, LinkOption.NOFOLLOW_LINKS);
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
                try {
                    Files.move(temporary, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    LOG.warn(
                            "cannot move the class-data archive {} into place atomically: {}",
                            temporary,
                            e.getMessage());
                    return false;
                }
                LOG.info("workers now start with the class-data archive {}", archive);
                return true;
            } catch (IOException e) {
                LOG.warn("cannot install the class-data archive {}: {}", archive, e);
                return false;
            }
        }
    }

    private static WorkerClassData off(String reason) {
        LOG.debug("workers start without a class-data archive: {}", reason);
        return new WorkerClassData(null, reason);
    }

    /**
     * Creates the directory when missing (owner-only, or 0755 with its parent when {@code
     * readableByOthers}); the reason it cannot be used, or null.
     */
    private static String prepareCacheDir(Path dir, boolean readableByOthers) {
        try {
            if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
                Files.createDirectories(
                        dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            if (readableByOthers) {
                for (Path d : List.of(dir.getParent(), dir)) {
                    if (Files.getOwner(d, LinkOption.NOFOLLOW_LINKS)
                            .getName()
                            .equals(System.getProperty("user.name"))) {
                        Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxr-xr-x"));
                    }
                }
            }
            PosixFileAttributes attributes =
                    Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            if (!attributes.isDirectory()) {
                return "cache " + dir + " is not a directory";
            }
            String user = System.getProperty("user.name");
            if (!attributes.owner().getName().equals(user)) {
                return "cache directory " + dir + " belongs to "
                        + attributes.owner().getName() + ", not " + user;
            }
            Set<PosixFilePermission> permissions = attributes.permissions();
            if (permissions.contains(PosixFilePermission.GROUP_WRITE)
                    || permissions.contains(PosixFilePermission.OTHERS_WRITE)) {
                return "cache directory " + dir + " can be written by others ("
                        + PosixFilePermissions.toString(permissions) + ")";
            }
            return null;
        } catch (IOException | UnsupportedOperationException e) {
            return "cannot use cache directory " + dir + ": " + e;
        }
    }

    private static String hash(String key) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("cannot delete the unfinished class-data archive {}: {}", file, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return archive == null ? "no class-data archive (" + offReason + ")" : "class-data archive " + archive;
    }
}
