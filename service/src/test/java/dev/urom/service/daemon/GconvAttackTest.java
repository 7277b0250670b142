// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.security.UnixAccount;
import dev.urom.host.Notification;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.Message.WorkerStartReply;
import dev.urom.wire.Protocol;
import dev.urom.wire.ServicePlugin;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gconv attack: a client's own gconv module, named for a charset in a {@code
 * gconv-modules} file of a directory it controls, is loaded by any process whose C library is given
 * that directory in {@code GCONV_PATH} and asked for the charset. The module ({@code
 * src/test/c/gconv_marker_module.c}) and a plugin whose open() asks iconv_open for the charset
 * ({@code iconv_plugin.c}) are built here; the module leaves a marker file when anything loads it.
 *
 * <p>First the positive control, before any daemon: the plugin, called as a worker calls it ({@code
 * plugin_driver.c}) and as the workers' user, does load the module when GCONV_PATH names its
 * directory, and does not without it. Then one daemon, with GCONV_PATH, LOCPATH, LC_ALL and
 * LANGUAGE of the attack in its own environment and {@code --worker-env-allow '*'} (the widest an
 * operator can open it), must neither take those variables from a host nor hand its own to a
 * worker: no marker, ever. Runs as any user: under a root test the workers run as a uid of the
 * test's principal's own (the driver as nobody stands for such an unprivileged uid), otherwise as
 * the test's user.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GconvAttackTest {
    private static final String CHARSET = "UROM-GCONV-PROBE";
    private static final String MODULE = "urom_gconv_probe";
    private static final List<String> ATTACK_VARIABLES = List.of("GCONV_PATH", "LOCPATH", "LC_ALL", "LANGUAGE");
    private static final String NEVER_PASSED =
            " is never passed to a worker: the C library, the loader, the JVM, JNA or Log4j reads it, "
                    + "or it names a file, library or command the worker would use";

    @TempDir
    static Path shared;

    private Path gconvDir;
    private Path marker;
    private String plainReport;
    private OsChildDaemon daemon;
    private long iconvPlugin;

    @BeforeAll
    void buildTheAttackAndCheckThatItIsSeen() throws Exception {
        OsTestbed testbed = OsTestbed.in(shared);
        gconvDir = testbed.publicDirectory("gconv");
        Path markers = testbed.publicDirectory("markers");
        OsTestbed.setMode(markers, "rwxrwxrwx"); // whoever loads the module may leave its trace
        marker = markers.resolve("loaded");
        OsTestbed.sharedObject(
                gconvDir, MODULE + ".so", "gconv_marker_module", "-DUROM_MARKER_PATH=\"" + marker + "\"");
        Files.writeString(
                gconvDir.resolve("gconv-modules"),
                "module " + CHARSET + "// INTERNAL " + MODULE + " 1\n" + "module INTERNAL " + CHARSET + "// " + MODULE
                        + " 1\n");
        OsTestbed.setMode(gconvDir.resolve("gconv-modules"), "rw-r--r--");
        Path plugins = testbed.publicDirectory("plugins");
        Path plugin = OsTestbed.sharedObject(
                plugins, "iconv_plugin.so", "iconv_plugin", "-DUROM_ICONV_CHARSET=\"" + CHARSET + "\"");
        Path driver = testbed.program("plugin_driver", "-I" + NativeFixtures.includeDir());

        UnixAccount workers = OsTestbed.defaultWorkerAccount();
        String attacked = drive(driver, plugin, workers, Map.of("GCONV_PATH", gconvDir.toString()));
        assertThat(attacked)
                .as("the plugin, given GCONV_PATH")
                .startsWith("iconv_open ")
                .contains(" GCONV_PATH=" + gconvDir + " ");
        assertThat(marker)
                .as("the marker of the module loaded with GCONV_PATH, as %s", workers.describe())
                .exists();
        assertThat(Files.readString(marker))
                .startsWith("loaded uid " + Integer.toUnsignedString(workers.uid()) + " pid ");
        Files.delete(marker);
        plainReport = drive(driver, plugin, workers, Map.of());
        assertThat(plainReport)
                .as("the plugin without GCONV_PATH")
                .isEqualTo("iconv_open failed 22 GCONV_PATH=unset LOCPATH=unset LC_ALL=unset " + "LANGUAGE=unset");
        assertThat(marker).as("the marker without GCONV_PATH").doesNotExist();

        Path home = testbed.publicDirectory("daemon");
        OsChildDaemon.Spec spec = new OsChildDaemon.Spec(testbed, home);
        spec.options(
                "--listen",
                spec.tmpdir().resolve("s").resolve("urom.sock").toString(),
                "--plugin-path",
                plugins.toString(),
                "--worker-env-allow",
                "*");
        for (String name : ATTACK_VARIABLES) {
            spec.env(name, attackValue(name));
        }
        daemon = spec.start();
        try (ControlClient client = ControlClient.connect(daemon.address())) {
            List<ServicePlugin> offered = ((PluginsReply) client.call(new PluginsRequest())).plugins();
            assertThat(offered).extracting(ServicePlugin::name).containsExactly("iconv_plugin");
            iconvPlugin = offered.get(0).id();
        }
        assertThat(marker).as("the marker after the daemon started").doesNotExist();
    }

    @AfterAll
    void stopDaemon() throws InterruptedException {
        if (daemon != null) {
            daemon.close();
        }
    }

    @AfterEach
    void noWorkerLeftAndNoMarker() throws Exception {
        for (ProcessHandle worker : daemon.workers()) {
            worker.destroyForcibly();
            worker.onExit().get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
        Files.deleteIfExists(marker);
    }

    /** The values of the attack: its gconv directory, its locale directory, a locale that needs a charset conversion. */
    private String attackValue(String name) {
        return switch (name) {
            case "GCONV_PATH", "LOCPATH" -> gconvDir.toString();
            case "LC_ALL" -> "de_DE.ISO-8859-1";
            case "LANGUAGE" -> "de";
            default -> throw new IllegalArgumentException(name);
        };
    }

    @ParameterizedTest
    @ValueSource(strings = {"GCONV_PATH", "LOCPATH", "LC_ALL", "LANGUAGE"})
    void aHostCannotPassAVariableOfTheAttackEvenWhenTheOperatorAllowsAny(String name) throws Exception {
        WorkerStartReply reply = startWith(List.of(name + "=" + attackValue(name)));

        assertNoMarker();
        assertThat(reply.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(reply.message()).isEqualTo("env " + name + NEVER_PASSED);
        assertThat(daemon.workers()).as("worker processes").isEmpty();
    }

    @Test
    void aHostCannotPassTheWholeAttack() throws Exception {
        List<String> env = new ArrayList<>();
        for (String name : ATTACK_VARIABLES) {
            env.add(name + "=" + attackValue(name));
        }
        WorkerStartReply reply = startWith(env);

        assertNoMarker();
        assertThat(reply.status()).isEqualTo(UromStatus.NOT_PERMITTED);
        assertThat(reply.message()).isEqualTo("env GCONV_PATH" + NEVER_PASSED);
        assertThat(daemon.workers()).as("worker processes").isEmpty();
    }

    @Test
    void theDaemonsOwnGconvPathAndLocaleDoNotReachItsWorkers() throws Exception {
        try (UromService service = UromService.connect(daemon.address().toString());
                Worker worker = service.newWorker()
                        .plugins(iconvPlugin)
                        .env("UCX_TLS=tcp")
                        .build()) {
            worker.start().get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
            OsProcessFacts process = OsProcessFacts.of(daemon.worker(worker.id()));
            Notification reply =
                    worker.submit(iconvPlugin, new byte[0]).get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);

            assertNoMarker();
            assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(new String(reply.payload(), StandardCharsets.UTF_8))
                    .as("what the worker's plugin saw")
                    .isEqualTo(plainReport);
            if (OsTestbed.runningAsRoot()) {
                assertThat(process.environment())
                        .doesNotContainKeys(ATTACK_VARIABLES.toArray(String[]::new))
                        .containsEntry("UCX_TLS", "tcp");
            } else {
                // The worker is undumpable: its environment is closed to the test's uid, and the plugin's report above
                // is the proof.
                assertThatThrownBy(process::environment).hasRootCauseInstanceOf(AccessDeniedException.class);
            }
        }
    }

    /** The module was not loaded: by the time a worker is READY its plugin has called iconv_open. */
    private void assertNoMarker() throws IOException {
        assertThat(marker)
                .as(
                        "the marker of the gconv module: %s",
                        Files.exists(marker) ? Files.readString(marker).strip() : "")
                .doesNotExist();
    }

    private WorkerStartReply startWith(List<String> env) throws Exception {
        try (ControlClient client = ControlClient.connect(daemon.address())) {
            return client.start(Protocol.ANY_WORKER, iconvPlugin, env);
        }
    }

    /** What {@code plugin_driver} says about {@code plugin}, run as {@code account} with PATH and {@code env} only. */
    private static String drive(Path driver, Path plugin, UnixAccount account, Map<String, String> env)
            throws Exception {
        ProcessBuilder builder = new ProcessBuilder(
                        OsTestbed.as(account, List.of(), List.of(driver.toString(), plugin.toString())))
                .redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        assertThat(process.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS))
                .as("plugin_driver ends")
                .isTrue();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.exitValue())
                .as("plugin_driver's exit status; it said: %s", output)
                .isZero();
        return output.strip();
    }
}
