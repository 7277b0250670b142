// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.framework.security.UnixAccount;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.nativebridge.NativeArtifacts;
import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * What the OS-level security tests of the daemon stand on: a directory tree that every user may
 * read and search (0755 directories, 0644 or 0755 files), so that a daemon or a worker running as
 * another user than the test (nobody) can run the code under test. It holds a copy of the test class
 * path (the Maven repository under the test user's home is usually closed to others) and of the
 * native files, the C programs and plugins of {@code src/test/c} compiled into it, and the private
 * files of the child daemons started from it ({@link OsChildDaemon}).
 *
 * <p>One per test class, made in a static {@code @TempDir} (which removes it). Not thread-safe.
 */
final class OsTestbed {
    /** The C sources of these tests, relative to the module (surefire's working directory). */
    static final Path SOURCES = Path.of("src", "test", "c");
    /** The unprivileged identity that root tests drop to: nobody's ids, which every Linux system reserves. */
    static final int NOBODY = 65534;

    private static final String PUBLIC_DIRECTORY = "rwxr-xr-x";
    private static final String PUBLIC_FILE = "rw-r--r--";

    private final Path root;
    private final String classPath;
    private final Path nativeDir;
    private int names;

    private OsTestbed(Path root, String classPath, Path nativeDir) {
        this.root = root;
        this.classPath = classPath;
        this.nativeDir = nativeDir;
    }

    /** Opens {@code dir} to everyone and copies the class path and the native files into it. */
    static OsTestbed in(Path dir) {
        try {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(PUBLIC_DIRECTORY));
            Path classes = Files.createDirectory(dir.resolve("cp"));
            List<String> entries = new ArrayList<>();
            int index = 0;
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                Path from = Path.of(entry);
                if (entry.isEmpty() || !Files.exists(from)) {
                    continue;
                }
                Path to = classes.resolve(index++ + "-" + from.getFileName());
                copyTree(from, to);
                entries.add(to.toString());
            }
            Path nativeCopy = Files.createDirectory(dir.resolve("native"));
            for (Path file : List.of(
                    NativeArtifacts.bridgeLibrary(),
                    NativeArtifacts.probeExecutable(),
                    NativeArtifacts.launcherExecutable())) {
                Path to = Files.copy(file, nativeCopy.resolve(file.getFileName()));
                Files.setPosixFilePermissions(to, PosixFilePermissions.fromString(PUBLIC_DIRECTORY));
            }
            publish(classes);
            publish(nativeCopy);
            return new OsTestbed(dir, String.join(File.pathSeparator, entries), nativeCopy);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot stage the class path in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from)) {
            Files.copy(from, to);
            return;
        }
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.toList()) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.createDirectories(target);
                } else if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
                    Files.copy(path, target);
                }
            }
        }
    }

    /** Makes every directory under {@code dir} 0755 and every file 0644 (0755 when executable). */
    private static void publish(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.toList()) {
                boolean searchable = Files.isDirectory(path) || Files.isExecutable(path);
                Files.setPosixFilePermissions(
                        path, PosixFilePermissions.fromString(searchable ? PUBLIC_DIRECTORY : PUBLIC_FILE));
            }
        }
    }

    /**
     * The command that runs {@code mainClass} of the staged class path with {@code args} in a JVM of
     * this JDK, which every user may run: quick to start (C1 only), the staged native files, {@code
     * jvmOptions} before the class path.
     */
    List<String> javaCommand(Class<?> mainClass, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-Xshare:auto",
                "-D" + NativeArtifacts.NATIVE_DIR_PROPERTY + "=" + nativeDir));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, mainClass.getName()));
        command.addAll(List.of(args));
        return command;
    }

    /** The staged class path. */
    String classPath() {
        return classPath;
    }

    /** The staged native files (for {@code -Durom.native.dir}). */
    Path nativeDir() {
        return nativeDir;
    }

    /** A new directory {@code name-<n>} in the testbed, mode 0755, owned by the test's user. */
    Path publicDirectory(String name) {
        try {
            Path dir = Files.createDirectory(root.resolve(name + "-" + ++names));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString(PUBLIC_DIRECTORY));
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A new plugin directory that everyone may read, holding one compiled echo plugin ({@code echo.so}, 0644). */
    Path echoPlugin() {
        Path dir = publicDirectory("plugins");
        setMode(NativeFixtures.compileMinimalPlugin(dir, "echo.so", 1), PUBLIC_FILE);
        return dir;
    }

    /** Compiles {@code src/test/c/<source>.c} into an executable that everyone may run. */
    Path program(String source, String... flags) {
        Path program = NativeFixtures.compileProgram(publicDirectory("bin"), source, source(source), flags);
        setMode(program, PUBLIC_DIRECTORY);
        return program;
    }

    /** Compiles {@code src/test/c/<source>.c} into the shared object {@code dir/fileName}, readable by everyone. */
    static Path sharedObject(Path dir, String fileName, String source, String... flags) {
        Path library = NativeFixtures.compilePlugin(dir, fileName, source(source), flags);
        setMode(library, PUBLIC_FILE);
        return library;
    }

    private static String source(String name) {
        try {
            return Files.readString(SOURCES.resolve(name + ".c"));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "test C source " + name + ".c is missing from " + SOURCES.toAbsolutePath(), e);
        }
    }

    static void setMode(Path path, String permissions) {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Gives {@code path} to {@code uid}:{@code gid} (root only). */
    static void chown(Path path, int uid, int gid) {
        try {
            Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
            Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the tests run as root (and so can make other identities with setpriv). */
    static boolean runningAsRoot() {
        return UnixAccounts.effectiveUid() == 0;
    }

    /** The test's own account. */
    static UnixAccount self() {
        int uid = UnixAccounts.effectiveUid();
        return UnixAccounts.user(uid)
                .orElseGet(() -> new UnixAccount(
                        Integer.toUnsignedString(uid),
                        uid,
                        UnixAccounts.effectiveGid(),
                        List.of(UnixAccounts.effectiveGid())));
    }

    /** The lowest uid from {@code from} on that no account and no group of this machine has. */
    static int freeUid(long from) {
        for (long id = from; id <= UidRange.MAX_ID; id++) {
            if (UnixAccounts.user((int) id).isEmpty()
                    && UnixAccounts.groupName((int) id).isEmpty()) {
                return (int) id;
            }
        }
        throw new AssertionError("every uid from " + from + " on is taken on this machine");
    }

    /** nobody's account. */
    static UnixAccount nobody() {
        return UnixAccounts.user(NOBODY)
                .orElseGet(() -> new UnixAccount(Integer.toString(NOBODY), NOBODY, NOBODY, List.of(NOBODY)));
    }

    /**
     * An account like that of a worker a daemon started by this test runs when told nothing: an
     * unprivileged one (nobody) as root, whose workers run as uids of their own; the test's user otherwise.
     */
    static UnixAccount defaultWorkerAccount() {
        return runningAsRoot() ? nobody() : self();
    }

    /**
     * The identity a test uses for a daemon that is not root: the test's own when it is not root,
     * else nobody (the daemon is started through setpriv).
     */
    static UnixAccount nonRootDaemonAccount() {
        return runningAsRoot() ? nobody() : self();
    }

    /**
     * {@code command} run as {@code account} through {@code setpriv} (with exactly {@code groups} as
     * its supplementary groups, none when empty); {@code command} itself when the test already is
     * that account.
     */
    static List<String> as(UnixAccount account, List<Integer> groups, List<String> command) {
        if (account.uid() == UnixAccounts.effectiveUid() && groups.isEmpty()) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of(
                "setpriv",
                "--reuid",
                Integer.toUnsignedString(account.uid()),
                "--regid",
                Integer.toUnsignedString(account.gid())));
        if (groups.isEmpty()) {
            wrapped.add("--clear-groups");
        } else {
            wrapped.addAll(List.of(
                    "--groups",
                    String.join(
                            ",", groups.stream().map(Integer::toUnsignedString).toList())));
        }
        wrapped.addAll(command);
        return wrapped;
    }
}
