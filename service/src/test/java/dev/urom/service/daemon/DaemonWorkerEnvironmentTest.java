// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccounts;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.daemon.testing.DaemonLog;
import dev.urom.service.daemon.testing.FakeWorkerMain;
import dev.urom.service.logging.LogText;
import dev.urom.service.os.ChildJvm;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a host can put into a worker's environment, and into the daemon's log on the way: real
 * daemons on Unix sockets with {@link FakeWorkerMain} workers. A WORKER_START whose env items are
 * refused must cost the log one short line whatever their size (a 64 KiB item was once copied
 * whole, 306 MiB in 5 s); a never-passable name is refused in any case and whatever the operator's
 * patterns; and a started worker's real environment ({@code /proc/<pid>/environ}) holds the daemon's
 * fixed values and the allowed items only, nothing the daemon itself inherited. The daemons of the
 * log tests log at TRACE, so that no level copies an item.
 */
class DaemonWorkerEnvironmentTest {
    private static final long ANY = Protocol.ANY_WORKER;
    /** An env item as long as one control frame can carry: the string of a WORKER_START is at most 65535 bytes. */
    private static final int ITEM_CHARS = 65_400;

    private static final long MAX_LOG_BYTES_PER_REFUSAL = 4096;
    private static final int TRACE = 70;

    @TempDir
    static Path pluginDir;

    @TempDir
    Path dir;

    private static long plugin;
    private final List<Daemon> daemons = new ArrayList<>();
    private final List<ControlClient> clients = new ArrayList<>();
    private Process child;

    @BeforeAll
    static void compilePlugin() {
        NativeFixtures.compileMinimalPlugin(pluginDir, "minimal.so", 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        clients.forEach(ControlClient::close);
        daemons.forEach(Daemon::close);
        if (child != null) {
            child.getOutputStream().close();
            if (!child.waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                child.destroyForcibly().waitFor(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        }
        Configurator.reconfigure();
    }

    private DaemonConfig config(String socket, List<String> allow) {
        return DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve(socket)))
                .logDir(dir.resolve("log-" + socket))
                .logLevel(TRACE)
                .sdkLogLevel(TRACE)
                .pluginPath(pluginDir.toString())
                .workerMainClass(FakeWorkerMain.class.getName())
                .security(
                        TestWorkers.security().toBuilder().workerEnvAllow(allow).build())
                .build();
    }

    /** Starts a daemon logging to its own file, connects to it and learns the plugin's id. */
    private ControlClient daemonAndClient(DaemonConfig config) throws Exception {
        Daemon daemon = Daemon.start(Daemon.configureLogging(config));
        daemons.add(daemon);
        ControlClient client = ControlClient.connect(daemon.address());
        clients.add(client);
        plugin = ((PluginsReply) client.call(new PluginsRequest()))
                .plugins()
                .get(0)
                .id();
        return client;
    }

    private DaemonLog log() {
        return new DaemonLog(Daemon.logFile(daemons.get(daemons.size() - 1).config()));
    }

    /** A refused start: its reply and the bytes it added to the daemon's log. */
    private record RefusedStart(WorkerStartReply reply, long logBytes, List<String> logLines) {}

    private RefusedStart refusedStart(ControlClient client, String item) throws Exception {
        DaemonLog log = log();
        long before = log.size();
        int linesBefore = log.lines().size();
        WorkerStartReply reply = client.start(ANY, plugin, List.of("UCX_TLS=rc", item));
        assertThat(reply.status())
                .as("the reply to a start with a %d-char item", item.length())
                .isNotEqualTo(UromStatus.SUCCESS);
        assertThat(reply.workerAddress()).isEmpty();
        List<String> lines = log.lines();
        return new RefusedStart(reply, log.size() - before, lines.subList(linesBefore, lines.size()));
    }

    private static void assertOneShortLine(String message) {
        assertThat(message).doesNotContain("\n").doesNotContain("\r").hasSizeLessThan(3 * LogText.MAX_CHARS);
    }

    @Test
    void aRefusedStartWithA64KiBEnvItemLeavesOneShortLineInTheLogThatNamesTheItemCut() throws Exception {
        ControlClient client = daemonAndClient(config("log.sock", DaemonSecurity.DEFAULT_WORKER_ENV_ALLOW));
        String longName = "UCX_" + "N".repeat(ITEM_CHARS - 6) + "=1";
        String noEquals = "UCX_" + "v".repeat(ITEM_CHARS - 4);
        String spaced = "UCX_A=" + "v".repeat(ITEM_CHARS / 2) + " " + "v".repeat(ITEM_CHARS / 2 - 7);
        String forgedLines = "UCX_B="
                + "\n2030-01-01 00:00:00.000 INFO  [main] dev.urom.service.daemon.Daemon - forged"
                        .repeat(ITEM_CHARS / 80);
        String longValue = "UCX_RNDV_THRESH=" + "7".repeat(ITEM_CHARS - 16);
        String neverWithValue = "LD_PRELOAD=" + "/tmp/evil.so:".repeat(WorkerEnvironment.MAX_VALUE_BYTES / 13);

        Map<String, RefusedStart> refusals = new LinkedHashMap<>();
        for (String item : List.of(longName, noEquals, spaced, forgedLines, longValue, neverWithValue)) {
            RefusedStart refusal = refusedStart(client, item);
            refusals.put(item.substring(0, 12), refusal);
            assertThat(refusal.logBytes())
                    .as("log bytes for the item starting %s", item.substring(0, 12))
                    .isPositive()
                    .isLessThanOrEqualTo(MAX_LOG_BYTES_PER_REFUSAL);
            assertThat(refusal.logLines())
                    .as("log lines for the item starting %s", item.substring(0, 12))
                    .singleElement()
                    .asString()
                    .contains("WORKER_START from connection 1")
                    .contains("refused");
            assertOneShortLine(refusal.reply().message());
        }

        RefusedStart name = refusals.get(longName.substring(0, 12));
        assertThat(name.reply().status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(name.reply().message())
                .startsWith("env item 'UCX_NNNN")
                .contains("more characters)")
                .contains("has an invalid name 'UCX_NNN");
        assertThat(name.logLines().get(0)).contains("refused: INVALID_VALUE env item 'UCX_NNNN");
        assertThat(refusals.get(noEquals.substring(0, 12)).reply().message())
                .startsWith("env item 'UCX_vvvv")
                .endsWith("' is not NAME=value");
        assertThat(refusals.get(spaced.substring(0, 12)).reply().message())
                .startsWith("env item 'UCX_A=vvv")
                .endsWith("' holds white space or a NUL");
        RefusedStart forged = refusals.get(forgedLines.substring(0, 12));
        assertThat(forged.reply().message()).startsWith("env item 'UCX_B=\\n2030-01-01");
        assertThat(log().linesWith("forged"))
                .as("lines a host forged into the log")
                .allSatisfy(line -> assertThat(line).contains("WORKER_START from"));
        assertThat(refusals.get(longValue.substring(0, 12)).reply().message())
                .isEqualTo("env UCX_RNDV_THRESH has a value of " + (ITEM_CHARS - 16) + " bytes; the limit is 4096");
        RefusedStart never = refusals.get(neverWithValue.substring(0, 12));
        assertThat(never.reply().status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(never.reply().message())
                .startsWith("env LD_PRELOAD is never passed to a worker")
                .doesNotContain("/tmp/evil.so");
        assertThat(never.logLines().get(0)).doesNotContain("/tmp/evil.so");
        assertThat(daemons.get(0).workers()).isEmpty();
    }

    @Test
    void aBurstOfRefusedStartsWith64KiBItemsCostsTheLogLessThanOneItem() throws Exception {
        ControlClient client = daemonAndClient(config("burst.sock", DaemonSecurity.DEFAULT_WORKER_ENV_ALLOW));
        DaemonLog log = log();
        long before = log.size();
        String item = "UCX_" + "v".repeat(ITEM_CHARS - 4);

        for (int i = 0; i < 200; i++) {
            assertThat(client.start(ANY, plugin, List.of(item)).status()).isEqualTo(UromStatus.INVALID_VALUE);
        }

        assertThat(log.size() - before)
                .as("log bytes for 200 refused starts of %d bytes each", ITEM_CHARS)
                .isLessThan(ITEM_CHARS);
        assertThat(log.linesWith("WORKER_START from connection 1")).hasSizeLessThanOrEqualTo(20);
    }

    @Test
    void everyNeverPassableNameIsRefusedWithOneLineNamingItInAnyCaseAndWhateverThePatternsSay() throws Exception {
        ControlClient defaults = daemonAndClient(config("defaults.sock", DaemonSecurity.DEFAULT_WORKER_ENV_ALLOW));
        List<String> names = List.of(
                "GCONV_PATH",
                "gconv_path",
                "LD_PRELOAD",
                "ld_preload",
                "Ld_Preload",
                "LD_LIBRARY_PATH",
                "LD_AUDIT",
                "LOCPATH",
                "LC_ALL",
                "lc_all",
                "LC_CTYPE",
                "LANG",
                "LANGUAGE",
                "GLIBC_TUNABLES",
                "MALLOC_ARENA_MAX",
                "TMPDIR",
                "tmpdir",
                "XDG_CACHE_HOME",
                "xdg_config_home",
                "JAVA_TOOL_OPTIONS",
                "java_tool_options",
                "JDK_JAVA_OPTIONS",
                "_JAVA_OPTIONS",
                "CLASSPATH",
                "JNA_LIBRARY_PATH",
                "LOG4J_DEBUG",
                "log4j2_debug",
                "LOG4J_CONFIGURATION_FILE",
                "UROM_OWNER_UID",
                "PATH",
                "HOME",
                "UCX_MODULE_DIR",
                "ucx_module_dir",
                "UCX_GDB_COMMAND",
                "UCX_HANDLE_ERRORS",
                "OMP_TOOL_LIBRARIES",
                "UCC_TL_PLUGIN",
                "UCX_PROTO_CONFIG_FILE");
        Daemon open = Daemon.start(config("open.sock", List.of("*")));
        daemons.add(open);
        ControlClient everything = ControlClient.connect(open.address());
        clients.add(everything);

        for (ControlClient client : List.of(defaults, everything)) {
            for (String name : names) {
                WorkerStartReply reply = client.start(ANY, plugin, List.of("UCX_TLS=rc", name + "=/tmp/x"));
                assertThat(reply.status()).as(name).isEqualTo(UromStatus.NOT_PERMITTED);
                assertThat(reply.message()).startsWith("env " + name + " is never passed to a worker: ");
                assertOneShortLine(reply.message());
            }
        }

        WorkerStartReply notAllowed = defaults.start(ANY, plugin, List.of("FOO_THREADS=2"));
        assertThat(notAllowed.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(notAllowed.message())
                .isEqualTo("env FOO_THREADS is not one the operator allows (--worker-env-allow UCX_*,UCC_*,OMP_*)");
        assertThat(daemons).allSatisfy(d -> assertThat(d.workers()).isEmpty());
        WorkerStartReply allowedByStar = everything.start(ANY, plugin, List.of("FOO_THREADS=2"));
        assertThat(allowedByStar.status()).as(allowedByStar.message()).isEqualTo(UromStatus.SUCCESS);
    }

    @Test
    void aWorkersEnvironmentHoldsTheFixedValuesAndTheAllowedItemsOnlyNothingTheDaemonInherited() throws Exception {
        Map<String, String> daemonEnvironment = new TreeMap<>(Map.of(
                "PATH", "/daemon-path-marker:/usr/bin:/bin",
                "HOME", "/daemon-home-marker",
                "TMPDIR", "/daemon-tmpdir-marker",
                "LD_LIBRARY_PATH", "/daemon-ld-marker",
                "GCONV_PATH", "/daemon-gconv-marker",
                "JAVA_TOOL_OPTIONS", "-Ddaemon.marker=leaked",
                "DAEMON_SECRET_MARKER", "leaked",
                "UCX_MODULE_DIR", "/daemon-ucx-module-marker",
                "UCX_TLS", "rc",
                "UCX_RNDV_THRESH", "daemon"));
        daemonEnvironment.put("LC_ALL", "C");
        ServiceAddress address = startChildDaemon(daemonEnvironment);
        ControlClient client = ControlClient.connect(address);
        clients.add(client);
        plugin = ((PluginsReply) client.call(new PluginsRequest()))
                .plugins()
                .get(0)
                .id();

        WorkerStartReply reply = client.start(
                ANY,
                plugin,
                List.of("UCX_RNDV_THRESH=16k", "UCX_NET_DEVICES=mlx5_0:1", "OMP_NUM_THREADS=2", "UCC_CLS=basic"));
        assertThat(reply.status()).as(reply.message()).isEqualTo(UromStatus.SUCCESS);
        ProcessHandle worker = child.toHandle()
                .children()
                .filter(p -> commandLine(p).contains(FakeWorkerMain.class.getName()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the child daemon has no worker process"));
        Map<String, String> environment = environmentWrittenBy(worker);

        String workerDirectory = environment.get("HOME");
        assertThat(workerDirectory).isNotNull().endsWith("/worker-0-1");
        assertThat(environment)
                .isEqualTo(new TreeMap<>(Map.ofEntries(
                        Map.entry("PATH", WorkerEnvironment.FIXED_PATH),
                        Map.entry("LANG", WorkerEnvironment.FIXED_LANG),
                        Map.entry(WorkerEnvironment.UCX_ERROR_SIGNALS, ""),
                        Map.entry("HOME", workerDirectory),
                        Map.entry("TMPDIR", workerDirectory),
                        Map.entry(WorkerSupervisor.OWNER_UID_VARIABLE, Integer.toString(UnixAccounts.effectiveUid())),
                        Map.entry("UCX_TLS", "rc"),
                        Map.entry("UCX_POSIX_USE_PROC_LINK", "n"),
                        Map.entry("UCX_RNDV_THRESH", "16k"),
                        Map.entry("UCX_NET_DEVICES", "mlx5_0:1"),
                        Map.entry("OMP_NUM_THREADS", "2"),
                        Map.entry("UCC_CLS", "basic"))));
    }

    /** Starts {@link ChildDaemonMain} with exactly {@code environment} and waits for its READY line. */
    private ServiceAddress startChildDaemon(Map<String, String> environment) throws Exception {
        Files.createDirectories(dir.resolve("child-tmp"));
        ProcessBuilder builder = new ProcessBuilder(ChildJvm.command(
                        ChildDaemonMain.class,
                        List.of("-Djava.io.tmpdir=" + dir.resolve("child-tmp")),
                        List.of(
                                dir.resolve("child.sock").toString(),
                                dir.resolve("child-log").toString(),
                                pluginDir.toString())))
                .redirectError(dir.resolve("child-stderr.txt").toFile());
        builder.environment().clear();
        builder.environment().putAll(environment);
        child = builder.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
                    try {
                        return out.readLine();
                    } catch (IOException e) {
                        return null;
                    }
                })
                .get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(line)
                .as("the child daemon's first line (stderr: %s)", Files.readString(dir.resolve("child-stderr.txt")))
                .startsWith("READY ");
        return ServiceAddress.parse(line.substring("READY ".length()));
    }

    /**
     * The environment {@code worker} (a {@link FakeWorkerMain}) was started with, as it wrote it into
     * its directory: its {@code /proc/PID/environ} is closed to the test, the worker being undumpable.
     */
    private Map<String, String> environmentWrittenBy(ProcessHandle worker) throws IOException {
        Path written;
        try (Stream<Path> files = Files.find(
                dir.resolve("child-tmp"),
                3,
                (path, attributes) -> path.getFileName().toString().equals(FakeWorkerMain.ENVIRONMENT_FILE))) {
            List<Path> found = files.toList();
            assertThat(found)
                    .as("environment files written by worker %s", worker.pid())
                    .hasSize(1);
            written = found.get(0);
        }
        Map<String, String> environment = new TreeMap<>();
        for (String entry : Files.readAllLines(written, StandardCharsets.UTF_8)) {
            int equals = entry.indexOf('=');
            environment.put(entry.substring(0, equals), entry.substring(equals + 1));
        }
        return environment;
    }

    private static String commandLine(ProcessHandle process) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"))
                    .replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }
}
