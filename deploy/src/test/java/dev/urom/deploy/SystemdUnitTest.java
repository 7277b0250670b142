// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.cli.DaemonOptions;
import dev.urom.framework.discovery.PluginPath;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.wire.RootDaemonAddress;
import dev.urom.wire.ServiceAddress;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The systemd unit ({@code deploy/systemd/urom.service}) and its environment file
 * ({@code urom.env}): systemd's own {@code systemd-analyze verify} finds nothing to say about them;
 * what they give the daemon are options it has, with the socket in the unit's runtime directory,
 * the logs in its logs directory and the Kubernetes manifests' capabilities; the unit is hardened;
 * and the daemon started as the unit starts it (the unit's command line, environment file and
 * PATH, the distribution in place of {@code /opt/urom}) listens, lists the sample plugins and
 * serves a worker.
 */
class SystemdUnitTest {
    private static final String UNIT = "urom.service";
    private static final String ENV = "urom.env";
    /** Where the unit expects the distribution (docs/deploy.md, "Running under systemd"). */
    private static final String PREFIX = "/opt/urom";

    private static final String ENV_FILE = "/etc/urom/urom.env";
    /** The PATH systemd gives a system service. */
    private static final String SYSTEMD_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private static final Duration DAEMON_START = Duration.ofSeconds(60);

    private static SystemdUnit unit() {
        return SystemdUnit.parse(UNIT, SystemdUnit.read(SystemdUnit.folder().resolve(UNIT)));
    }

    private static Map<String, String> environment() {
        return SystemdUnit.parseEnvironment(
                ENV, SystemdUnit.read(SystemdUnit.folder().resolve(ENV)));
    }

    private static Path distribution() {
        Path dist = Path.of(System.getProperty("urom.dist", "../cli/target/urom"));
        assertThat(dist.resolve("bin/urom"))
                .as("the distribution's launcher: build it first (mvn -B -q package -DskipTests)")
                .isExecutable();
        return dist.toAbsolutePath().normalize();
    }

    @Test
    void systemdAnalyzeVerifyFindsNothingToSay(@TempDir Path root) throws Exception {
        String output = verify(root, SystemdUnit.read(SystemdUnit.folder().resolve(UNIT)));
        assertThat(output).as("systemd-analyze verify on %s", UNIT).isEmpty();
    }

    @Test
    void systemdAnalyzeVerifyCatchesAMisspelledSetting(@TempDir Path root) throws Exception {
        String broken = SystemdUnit.read(SystemdUnit.folder().resolve(UNIT))
                .replace("ProtectSystem=strict", "ProtectSystm=strict");
        assertThat(verify(root, broken)).contains("ProtectSystm");
    }

    @Test
    void systemdAnalyzeVerifyCatchesAMissingProgram(@TempDir Path root) throws Exception {
        String broken = SystemdUnit.read(SystemdUnit.folder().resolve(UNIT))
                .replace(PREFIX + "/bin/urom", PREFIX + "/bin/uromd");
        assertThat(verify(root, broken)).contains(PREFIX + "/bin/uromd");
    }

    /**
     * Runs {@code systemd-analyze verify} on {@code unitText} installed in a root of its own: the
     * unit and its environment file where the unit names them, the distribution's launcher at
     * {@link #PREFIX}, and this machine's own units (those the unit depends on). Returns what it
     * printed, or fails when it exits non-zero.
     */
    private static String verify(Path root, String unitText) throws IOException, InterruptedException {
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        assertThat(analyze)
                .as(
                        "systemd-analyze, to check the unit: install the systemd package (Debian and Ubuntu: apt-get install systemd)")
                .isExecutable();
        Path units = Files.isDirectory(Path.of("/usr/lib/systemd/system"))
                ? Path.of("/usr/lib/systemd/system")
                : Path.of("/lib/systemd/system");
        Path rootUnits = Files.createDirectories(root.resolve("usr/lib/systemd/system"));
        try (Stream<Path> files = Files.list(units)) {
            // The unit files themselves; aliases (symbolic links) would point back into the root and loop.
            for (Path file : files.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS))
                    .toList()) {
                Files.copy(file, rootUnits.resolve(file.getFileName()));
            }
        }
        Files.createDirectories(root.resolve("etc/systemd/system"));
        Files.writeString(root.resolve("etc/systemd/system").resolve(UNIT), unitText);
        Path envFile = root.resolve(ENV_FILE.substring(1));
        Files.createDirectories(envFile.getParent());
        Files.copy(SystemdUnit.folder().resolve(ENV), envFile);
        Path launcher = root.resolve(PREFIX.substring(1)).resolve("bin/urom");
        Files.createDirectories(launcher.getParent());
        Files.copy(distribution().resolve("bin/urom"), launcher, StandardCopyOption.COPY_ATTRIBUTES);
        Process process = new ProcessBuilder(analyze.toString(), "verify", "--root=" + root, UNIT)
                .redirectErrorStream(true)
                .start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("systemd-analyze verify ended")
                .isTrue();
        if (process.exitValue() != 0 && output.isEmpty()) {
            throw new AssertionError("systemd-analyze verify exited " + process.exitValue() + " and said nothing");
        }
        return output;
    }

    @Test
    void execStartIsTheDistributionsLauncherWithNothingMore() {
        SystemdUnit unit = unit();
        assertThat(unit.one("Service", "ExecStart"))
                .as("%s: ExecStart (the daemon reads SERVICE_ARGS itself; passing them too repeats them)", UNIT)
                .isEqualTo(PREFIX + "/bin/urom daemon");
        assertThat(unit.one("Service", "EnvironmentFile"))
                .as("%s: EnvironmentFile (required: no '-')", UNIT)
                .isEqualTo(ENV_FILE);
        assertThat(unit.all("Service", "Environment"))
                .as("%s: Environment= (everything is in %s)", UNIT, ENV_FILE)
                .isEmpty();
        assertThat(distribution().resolve("bin/urom")).isExecutable();
    }

    @Test
    void environmentFileGivesTheDaemonOptionsItHas() {
        Map<String, String> env = environment();
        assertThat(env.keySet())
                .as("%s: its variables", ENV)
                .containsExactlyInAnyOrder(PluginPath.ENVIRONMENT_VARIABLE, "SERVICE_ARGS");
        DaemonOptions options = parse(env);
        DaemonSecurity security = options.config().security();
        List<String> words = Arrays.asList(env.get("SERVICE_ARGS").split("\\s+"));
        assertThat(words)
                .as("%s: SERVICE_ARGS", ENV)
                .doesNotContain(
                        "--insecure-tcp",
                        "--allow-insecure-plugin-dirs",
                        "--dumpable-workers",
                        "--listen",
                        "--log-dir");
        assertThat(security.workerUser())
                .as(
                        "%s: --worker-user (none: each principal's workers as a uid of its own; one user for all is weaker)",
                        ENV)
                .isNull();
        assertThat(security.workerGroups())
                .as("%s: --worker-groups (not root's group)", ENV)
                .doesNotContain("0", "root");
        assertThat(security.socketGroup())
                .as("%s: --socket-group (the hosts' group the guide makes)", ENV)
                .isEqualTo("urom-users");
        assertThat(options.config().logDir()).isEqualTo(DaemonConfig.DEFAULT_LOG_DIR);
        Path dist = distribution();
        List<Path> dirs = PluginPath.parse(env.get(PluginPath.ENVIRONMENT_VARIABLE));
        assertThat(dirs)
                .as("%s: %s", ENV, PluginPath.ENVIRONMENT_VARIABLE)
                .containsExactly(
                        Path.of(PREFIX, "plugins/worker_graph"),
                        Path.of(PREFIX, "plugins/worker_sandbox"),
                        Path.of(PREFIX, "plugins/worker_coll"));
        for (Path dir : dirs) {
            assertThat(dist.resolve(Path.of(PREFIX).relativize(dir)))
                    .as("%s in the distribution", dir)
                    .isDirectory();
        }
    }

    @Test
    void anOptionTheDaemonDoesNotHaveIsRefused() {
        Map<String, String> env = new HashMap<>(environment());
        env.put("SERVICE_ARGS", env.get("SERVICE_ARGS") + " --worker-usr urom");
        assertThatThrownBy(() -> parse(env))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--worker-usr");
    }

    /** What the reader would have to interpret as systemd does is refused, naming the file and the line, not read another way. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "SERVICE_ARGS=\"--worker-user urom\"",
                "SERVICE_ARGS=--log-dir $LOGS",
                "SERVICE_ARGS=--worker-user urom \\",
                "export SERVICE_ARGS=-l 60",
                "SERVICE_ARGS=-l 60\nSERVICE_ARGS=-l 70",
                "SERVICE_ARGS=--log-dir /var/log/%n"
            })
    void anEnvironmentFileThatSystemdWouldReadOtherwiseIsRefused(String text) {
        assertThatThrownBy(() -> SystemdUnit.parseEnvironment("test.env", "# comment\n" + text + "\n"))
                .isInstanceOf(ManifestException.class)
                .hasMessageStartingWith("test.env:");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "ExecStart=/opt/urom/bin/urom daemon \\",
                "Description=before any section\n[Service]",
                "[Service]\nExecStart=/opt/urom/bin/urom daemon %i",
                "[Service]\nnot an entry",
                "[Service]\n[Service]"
            })
    void aUnitThatSystemdWouldReadOtherwiseIsRefused(String text) {
        assertThatThrownBy(() -> SystemdUnit.parse("test.service", text + "\n"))
                .isInstanceOf(ManifestException.class)
                .hasMessageStartingWith("test.service:");
    }

    private static DaemonOptions parse(Map<String, String> env) {
        return DaemonOptions.parse(env.get("SERVICE_ARGS"), env.get(PluginPath.ENVIRONMENT_VARIABLE));
    }

    @Test
    void theSocketIsInTheRuntimeDirectoryWhereARootDaemonListens() {
        SystemdUnit unit = unit();
        ServiceAddress rootDefault = RootDaemonAddress.defaultListen();
        assertThat(rootDefault.isUnix()).isTrue();
        assertThat(Path.of("/run", unit.one("Service", "RuntimeDirectory")))
                .as("%s: RuntimeDirectory (the directory of a root daemon's socket, %s)", UNIT, rootDefault)
                .isEqualTo(rootDefault.unixPath().getParent());
        assertThat(unit.one("Service", "RuntimeDirectoryMode"))
                .as("%s: RuntimeDirectoryMode (the daemon opens it to --socket-group itself)", UNIT)
                .isEqualTo("0700");
    }

    @Test
    void theLogsDirectoryIsTheDaemonsDefault() {
        assertThat(Path.of("/var/log", unit().one("Service", "LogsDirectory")))
                .as("%s: LogsDirectory", UNIT)
                .isEqualTo(DaemonConfig.DEFAULT_LOG_DIR);
    }

    @Test
    void theDaemonKeepsTheManifestsCapabilitiesAndNoOther() {
        Set<String> bounding = new TreeSet<>(
                Arrays.asList(unit().one("Service", "CapabilityBoundingSet").split("\\s+")));
        Set<String> manifests = UromPodChecks.DAEMON_CAPABILITIES.keySet().stream()
                .map(c -> "CAP_" + c)
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(bounding)
                .as(
                        "%s: CapabilityBoundingSet (each needed by the daemon: %s)",
                        UNIT, UromPodChecks.DAEMON_CAPABILITIES)
                .isEqualTo(manifests);
        assertThat(unit().all("Service", "AmbientCapabilities"))
                .as("%s: AmbientCapabilities", UNIT)
                .isEmpty();
    }

    @Test
    void theUnitIsHardened() {
        SystemdUnit unit = unit();
        Map<String, String> expected = Map.ofEntries(
                Map.entry("NoNewPrivileges", "yes"),
                Map.entry("ProtectSystem", "strict"),
                Map.entry("ProtectHome", "yes"),
                Map.entry("PrivateTmp", "yes"),
                Map.entry("ProtectKernelTunables", "yes"),
                Map.entry("ProtectKernelModules", "yes"),
                Map.entry("ProtectControlGroups", "yes"),
                Map.entry("RestrictSUIDSGID", "yes"),
                Map.entry("UMask", "0077"),
                Map.entry("Restart", "on-failure"),
                Map.entry("KillMode", "mixed"));
        expected.forEach((key, value) ->
                assertThat(unit.one("Service", key)).as("%s: %s", UNIT, key).isEqualTo(value));
        assertThat(unit.all("Service", "User"))
                .as("%s: User= (workers must run as another user than the daemon: it needs root)", UNIT)
                .isEmpty();
        assertThat(unit.all("Service", "DynamicUser"))
                .as("%s: DynamicUser= (workers would run as the daemon's user)", UNIT)
                .isEmpty();
        assertThat(unit.all("Service", "MemoryDenyWriteExecute"))
                .as("%s: MemoryDenyWriteExecute= (the JVM writes the code it compiles)", UNIT)
                .isEmpty();
        assertThat(unit.one("Install", "WantedBy")).isEqualTo("multi-user.target");
    }

    /**
     * Starts the daemon as the unit does (its ExecStart and environment file with the distribution
     * in place of {@link #PREFIX}, its UMask, systemd's PATH and nothing else of this test's environment),
     * with only what this machine lacks given on the command line, which comes after SERVICE_ARGS:
     * a socket and a log directory of the test's own instead of {@code /run/urom} and
     * {@code /var/log/doca/urom}, this test's group instead of the one the guide makes, and {@code
     * --worker-user} this test's user (root: root), since a checkout, unlike {@code /opt/urom}, need
     * not be readable by the uids of the range. Then a host lists the plugins and runs a LOOPBACK
     * through a worker, and SIGTERM ends the daemon with a status the unit counts as success.
     */
    @Test
    void theDaemonStartedAsTheUnitStartsItServes(@TempDir Path dir) throws Exception {
        Path dist = distribution();
        SystemdUnit unit = unit();
        // The unit's UMask, through a shell that sets it and executes the unit's command line.
        List<String> command = new ArrayList<>(
                List.of("/bin/sh", "-c", "umask " + unit.one("Service", "UMask") + " && exec \"$@\"", "sh"));
        for (String word : unit.one("Service", "ExecStart").split("\\s+")) {
            command.add(word.startsWith(PREFIX + "/") ? dist + word.substring(PREFIX.length()) : word);
        }
        Path socket = dir.resolve("run/urom.sock");
        Path logs = dir.resolve("log");
        boolean root = UnixAccounts.effectiveUid() == 0;
        String workerUser = root ? "root" : UnixAccounts.effectiveUid() + ":" + UnixAccounts.effectiveGid();
        command.addAll(List.of(
                "--listen",
                "unix:" + socket,
                "--log-dir",
                logs.toString(),
                "--worker-user",
                workerUser,
                "--socket-group",
                String.valueOf(UnixAccounts.effectiveGid())));
        Map<String, String> env = new HashMap<>();
        env.put("PATH", SYSTEMD_PATH);
        environment().forEach((name, value) -> env.put(name, value.replace(PREFIX + "/", dist + "/")));
        Files.createDirectories(
                dir.resolve("run"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path output = dir.resolve("daemon.out");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        Process daemon = builder.start();
        try {
            long deadline = System.nanoTime() + DAEMON_START.toNanos();
            while (!Files.exists(socket) && daemon.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertThat(Files.exists(socket))
                    .as("the daemon listens on %s; it printed: %s", socket, Files.readString(output))
                    .isTrue();
            String service = "unix:" + socket;
            String plugins = host(dist, env, dir, "plugins", "--service", service);
            assertThat(plugins).contains("worker_graph", "worker_sandbox", "worker_coll", "worker_coll_java");
            assertThat(host(dist, env, dir, "loopback", "--service", service, "--value", "4660"))
                    .contains("4660");
        } finally {
            daemon.destroy();
            if (!daemon.waitFor(30, TimeUnit.SECONDS)) {
                daemon.destroyForcibly().waitFor();
            }
        }
        Set<String> success = new TreeSet<>(List.of("0"));
        success.addAll(unit.all("Service", "SuccessExitStatus").stream()
                .flatMap(s -> Arrays.stream(s.split("\\s+")))
                .toList());
        assertThat(success)
                .as(
                        "the daemon's status after SIGTERM (the unit counts 0 and SuccessExitStatus as success); it printed: %s",
                        Files.readString(output))
                .contains(String.valueOf(daemon.exitValue()));
        assertThat(logs.resolve("urom_daemon_dev.log")).isRegularFile();
    }

    /** Runs {@code bin/urom ARGS} as a host with the unit's environment and returns its output; fails unless it exits 0. */
    private static String host(Path dist, Map<String, String> env, Path dir, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(dist.resolve("bin/urom").toString()));
        command.addAll(List.of(args));
        File output = dir.resolve("host-" + args[0] + ".out").toFile();
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output);
        builder.environment().clear();
        builder.environment().putAll(env);
        Process process = builder.start();
        boolean ended = process.waitFor(60, TimeUnit.SECONDS);
        if (!ended) {
            process.destroyForcibly().waitFor();
        }
        String text = Files.readString(output.toPath());
        assertThat(ended)
                .as("urom %s ended within 60 s; it printed: %s", String.join(" ", args), text)
                .isTrue();
        assertThat(process.exitValue())
                .as("urom %s exit status; it printed: %s", String.join(" ", args), text)
                .isZero();
        return text;
    }
}
