// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static java.util.Objects.requireNonNull;

import com.sun.jna.Platform;
import dev.urom.auth.Principal;
import dev.urom.framework.security.PathTrust;
import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.nativebridge.NativeArtifacts;
import dev.urom.spi.UromException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Who worker processes run as, and the files they have: resolved and prepared once when the daemon
 * starts (docs/security.md, "Who workers run as").
 *
 * <p>Who: {@link WorkerIdentities} (each principal's own uid for a root daemon, one {@code
 * --worker-user} for all, or the daemon's own user). Workers always start through the launcher
 * ({@link NativeArtifacts#launcherExecutable()}), which binds the worker's listening socket with the
 * daemon's rights, then drops to the worker's user and groups before it executes the JVM, from the
 * execute-only copy of {@link WorkerJava}.
 *
 * <p>Files: a fresh work directory ({@code urom-workers-*} under the daemon's temporary directory,
 * owned by the daemon, mode 0711 when workers run as other users: they may pass through, not
 * list it), and in it one private directory per worker ({@code worker-<id>-<launch>}, owned by the
 * worker's user, mode 0700): its working directory, {@code HOME}, {@code TMPDIR}, Java and JNA
 * temporary directory, crash report and plugin sockets. JNA never unpacks anything in a worker: it
 * loads the distribution's {@code libjnidispatch.so} ({@code jna.boot.library.path}), or, from a
 * build tree, a copy the daemon makes in the work directory at start.
 *
 * <p>Start refuses, with one line naming the file and the directory that stops it, workers who
 * could not read the JVM, the class path, the native files or the work directory (for per-principal
 * uids: what others may not read).
 *
 * <p>Thread-safe.
 */
final class WorkerRuntime implements AutoCloseable {
    /** The name of a daemon's workers' directory: this, its pid, a dash, a random part. */
    static final String WORK_ROOT_PREFIX = "urom-workers-";

    private static final Logger LOG = LogManager.getLogger(WorkerRuntime.class);
    private static final String JNA_LIBRARY = "libjnidispatch.so";
    /** Where JNA's jar holds this platform's library (linux-x86-64, linux-aarch64, ...). */
    private static final String JNA_RESOURCE = "com/sun/jna/" + Platform.RESOURCE_PREFIX + "/" + JNA_LIBRARY;

    private final WorkerIdentities identities;
    private final int daemonUid;
    private final Path workRoot;
    private final Path jnaDirectory;
    private final Path java;

    private WorkerRuntime(WorkerIdentities identities, int daemonUid, Path workRoot, Path jnaDirectory, Path java) {
        this.identities = identities;
        this.daemonUid = daemonUid;
        this.workRoot = workRoot;
        this.jnaDirectory = jnaDirectory;
        this.java = java;
    }

    /**
     * Resolves who workers run as, checks what they must read, and makes the work directory.
     *
     * @throws IOException one line: an unknown user or group, an option a daemon that is not root
     *     cannot honour, a file the workers cannot read, a directory that cannot be made
     */
    static WorkerRuntime start(DaemonSecurity security) throws IOException {
        int daemonUid = UnixAccounts.effectiveUid();
        WorkerIdentities identities = WorkerIdentities.of(security, daemonUid);
        if (identities.rootWorkers()) {
            LOG.warn("workers run as root (--worker-user {}): a plugin's bug is then root's", security.workerUser());
        }
        if (identities.otherUsers()) {
            checkReadable(identities.everyWorker(), filesWorkersRead());
        }
        Path workRoot = makeWorkRoot(identities);
        try {
            Path jna = jnaDirectory(workRoot);
            if (identities.otherUsers()) {
                checkReadable(identities.everyWorker(), List.of(jna.resolve(JNA_LIBRARY)));
            }
            Path java;
            if (security.dumpableWorkers()) {
                LOG.warn(
                        "--dumpable-workers: processes of a worker's uid may read its memory, keys included, and trace it");
                java = WorkerJava.jdkLauncher();
            } else {
                java = WorkerJava.prepare(workRoot);
            }
            LOG.info("workers run as {}; their directories are in {}", identities.describe(), workRoot);
            return new WorkerRuntime(identities, daemonUid, workRoot, jna, java);
        } catch (IOException | RuntimeException e) {
            deleteTree(workRoot);
            throw e;
        }
    }

    /** The JVM, the class path, and the native files of the distribution. */
    private static List<Path> filesWorkersRead() {
        List<Path> files = new ArrayList<>();
        files.add(WorkerJava.jdkLauncher());
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.isEmpty()) {
                files.add(Path.of(entry));
            }
        }
        files.add(NativeArtifacts.bridgeLibrary());
        return files;
    }

    private static void checkReadable(UnixAccount workers, List<Path> files) throws IOException {
        for (Path file : files) {
            Optional<String> problem = PathTrust.unreadable(file, workers);
            if (problem.isPresent()) {
                throw new IOException(problem.get() + "; install urom where " + workers.describe() + " can read it"
                        + (workers.uid() == UnixAccount.NO_ID ? " (readable by others)" : "")
                        + ", or choose a --worker-user who can (root workers: --worker-user root)");
            }
        }
    }

    /**
     * Deletes the workers' directories that daemons of this user left in {@code parent} when they
     * were killed ({@code urom-workers-<pid>-*}, where no process {@code pid} runs any more): a
     * daemon ended by SIGKILL cannot remove its own. Only real directories (no symbolic link) owned
     * by this process's uid are touched, and none of a live pid (a reused pid keeps its directory
     * until that process is gone too). Failures are logged, never thrown.
     */
    static void sweepDeadDaemons(Path parent, long ownPid) {
        int uid = UnixAccounts.effectiveUid();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(parent, WORK_ROOT_PREFIX + "*")) {
            for (Path entry : entries) {
                OptionalLong pid = daemonPid(entry.getFileName().toString());
                if (pid.isEmpty()
                        || pid.getAsLong() == ownPid
                        || ProcessHandle.of(pid.getAsLong()).isPresent()) {
                    continue;
                }
                BasicFileAttributes attributes =
                        Files.readAttributes(entry, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                if (attributes.isDirectory()
                        && Integer.valueOf(uid)
                                .equals(Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS))) {
                    LOG.info("deleting {}, left by daemon {} that is gone", entry, pid.getAsLong());
                    deleteTree(entry);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot look for directories of ended daemons in {}: {}", parent, e.getMessage());
        }
    }

    /** The pid in {@code urom-workers-<pid>-<random>}; empty for any other name. */
    static OptionalLong daemonPid(String name) {
        if (!name.startsWith(WORK_ROOT_PREFIX)) {
            return OptionalLong.empty();
        }
        String rest = name.substring(WORK_ROOT_PREFIX.length());
        int dash = rest.indexOf('-');
        if (dash <= 0 || dash > 10 || !rest.substring(0, dash).chars().allMatch(c -> c >= '0' && c <= '9')) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(rest.substring(0, dash)));
    }

    private static Path makeWorkRoot(WorkerIdentities identities) throws IOException {
        Path parent = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
        if (identities.otherUsers()) {
            Optional<String> problem = PathTrust.unreadable(parent, identities.everyWorker());
            if (problem.isPresent()) {
                throw new IOException(
                        problem.get() + "; the daemon makes its workers' directories there (java.io.tmpdir)");
            }
        }
        sweepDeadDaemons(parent, ProcessHandle.current().pid());
        Path root = Files.createTempDirectory(
                parent,
                WORK_ROOT_PREFIX + ProcessHandle.current().pid() + "-",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        try {
            // a temporary directory that others may write without the sticky bit would let them swap this one
            Optional<String> problem =
                    PathTrust.untrusted(root, Set.copyOf(List.of(PathTrust.ROOT_UID, UnixAccounts.effectiveUid())));
            if (problem.isPresent()) {
                throw new IOException(
                        "the workers' directory " + root + " is not safe: " + problem.get()
                                + "; give the daemon a java.io.tmpdir that only it (or root) may write, or one with the sticky bit");
            }
            if (identities.otherUsers()) {
                Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwx--x--x"));
            }
            return root;
        } catch (IOException | RuntimeException e) {
            deleteTree(root);
            throw e;
        }
    }

    /**
     * Sets the owner or group ({@code attribute}, {@code what}) of a directory the daemon has just
     * made; a refusal names the directory and the capability a root daemon in a container may lack.
     */
    private static void giveTo(Path dir, String attribute, int id, String what) throws IOException {
        try {
            Files.setAttribute(dir, attribute, id, LinkOption.NOFOLLOW_LINKS);
        } catch (FileSystemException e) {
            throw new IOException("cannot give " + dir + " to the workers' " + what + " (" + id + "): "
                    + (e.getReason() != null ? e.getReason() : e.getClass().getSimpleName())
                    + " (a daemon in a container needs the CHOWN capability)");
        }
    }

    /** Where the workers' JNA finds its native library: the daemon's native directory, or a copy in the work directory. */
    private static Path jnaDirectory(Path workRoot) throws IOException {
        Path nativeDir = NativeArtifacts.bridgeLibrary().getParent();
        if (Files.isRegularFile(nativeDir.resolve(JNA_LIBRARY))) {
            return nativeDir;
        }
        Path copy = Files.createDirectory(workRoot.resolve("native"));
        try (InputStream library = WorkerRuntime.class.getClassLoader().getResourceAsStream(JNA_RESOURCE)) {
            if (library == null) {
                throw new IOException("JNA's " + JNA_RESOURCE + " is not on the class path and " + nativeDir
                        + " holds no " + JNA_LIBRARY);
            }
            Files.copy(library, copy.resolve(JNA_LIBRARY));
        }
        Files.setPosixFilePermissions(copy.resolve(JNA_LIBRARY), PosixFilePermissions.fromString("rw-r--r--"));
        Files.setPosixFilePermissions(copy, PosixFilePermissions.fromString("rwxr-xr-x"));
        return copy;
    }

    /**
     * The account {@code principal}'s workers run as.
     *
     * @throws UromException as {@link WorkerIdentities#accountFor}
     */
    UnixAccount accountFor(Principal principal) throws UromException {
        return identities.accountFor(principal);
    }

    /** Whom the files every worker needs must be readable by (see {@link WorkerIdentities#everyWorker}). */
    UnixAccount everyWorker() {
        return identities.everyWorker();
    }

    /** Whether some worker may run as another user than the daemon. */
    boolean otherUsers() {
        return identities.otherUsers();
    }

    /** The java launcher workers start from ({@link WorkerJava}). */
    Path java() {
        return java;
    }

    /** Where the workers' JNA loads {@code libjnidispatch.so} from. */
    Path jnaDirectory() {
        return jnaDirectory;
    }

    /** The private directory of the worker named {@code name} (see {@link #makeWorkerDirectory}). */
    Path workerDirectory(String name) {
        return workRoot.resolve(name);
    }

    /**
     * Makes the private directory of the worker named {@code name}: owned by {@code account}, the
     * worker's, mode 0700.
     *
     * @throws IOException when it cannot be made
     */
    Path makeWorkerDirectory(String name, UnixAccount account) throws IOException {
        Path dir = workerDirectory(name);
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        if (account.uid() != daemonUid) {
            try {
                giveTo(dir, "unix:uid", account.uid(), "user");
                Files.setAttribute(dir, "unix:gid", account.gid(), LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                deleteTree(dir);
                throw e;
            }
        }
        return dir;
    }

    /** Deletes the private directory of the worker named {@code name} (it has ended). */
    void deleteWorkerDirectory(String name) {
        deleteTree(workerDirectory(name));
    }

    /**
     * The launcher and its options before {@code --} for a worker: where it binds the listening
     * socket and with what mode and owner, its directory, the user and groups a root daemon's worker
     * drops to ({@code account}), the daemon's pid.
     *
     * @param listen {@code --listen-unix PATH} or {@code --listen-tcp HOST} and their socket options
     */
    List<String> launcherOptions(List<String> listen, Path workerDirectory, UnixAccount account) {
        List<String> options = new ArrayList<>();
        options.add(NativeArtifacts.launcherExecutable().toString());
        options.addAll(listen);
        options.addAll(List.of("--chdir", workerDirectory.toString()));
        if (daemonUid == 0) {
            options.addAll(List.of(
                    "--user",
                    Integer.toUnsignedString(account.uid()),
                    "--group",
                    Integer.toUnsignedString(account.gid()),
                    "--groups",
                    account.groups().stream().map(Integer::toUnsignedString).collect(Collectors.joining(","))));
        }
        options.addAll(
                List.of("--parent-pid", Long.toString(ProcessHandle.current().pid()), "--"));
        return options;
    }

    /** Whether the daemon runs as root (and so may give a worker's socket to its owner). */
    boolean asRoot() {
        return daemonUid == 0;
    }

    /** Deletes the work directory and everything in it. */
    @Override
    public void close() {
        deleteTree(workRoot);
    }

    static void deleteTree(Path dir) {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            FileTrees.delete(dir);
        } catch (IOException | RuntimeException e) {
            LOG.warn("cannot delete {}: {}", dir, e.getMessage());
        }
    }

    @Override
    public String toString() {
        return "WorkerRuntime[" + requireNonNull(identities).describe() + ", " + workRoot + "]";
    }
}
