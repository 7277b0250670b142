// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.daemon.testing.ControlClient;
import dev.urom.service.os.ChildJvm;
import dev.urom.wire.Message.PluginsReply;
import dev.urom.wire.Message.PluginsRequest;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.ServicePlugin;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A daemon that runs out of file descriptors (EMFILE on accept): a daemon and its HTTP endpoint
 * in a child JVM started under a small open-files limit ({@code ulimit -n}, which any user may
 * lower), exhausted by host connections that never say hello.
 */
class DaemonAtTheOpenFilesLimitTest {
    /** The child JVM's limit: room for the JVM itself (measured: about 50 descriptors) and about 150 host connections. */
    private static final int OPEN_FILES_LIMIT = 256;

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final String FAILING = "accepting host connections fails: Too many open files";
    private static final String RECOVERED = "accepting host connections again, after ";

    @TempDir
    Path dir;

    private Process daemon;
    private final List<SocketChannel> hosts = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        closeHosts();
        if (daemon != null) {
            daemon.getOutputStream().close();
            if (!daemon.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                daemon.destroyForcibly().waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS);
            }
        }
    }

    private void closeHosts() throws IOException {
        for (SocketChannel host : hosts) {
            host.close();
        }
        hosts.clear();
    }

    @Test
    void aDaemonOutOfDescriptorsFailsItsHealthWithTheReasonAndAcceptsAgainOnceSomeAreFree() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        NativeFixtures.compileMinimalPlugin(plugins, "minimal.so", 1);
        Path socket = dir.resolve("urom.sock");
        Path logDir = dir.resolve("log");
        List<String> command = new ArrayList<>(
                List.of("sh", "-c", "ulimit -n \"$0\" && exec \"$@\"", Integer.toString(OPEN_FILES_LIMIT)));
        command.addAll(ChildJvm.command(
                AcceptLimitDaemonMain.class,
                List.of("-Dsun.net.httpserver.idleInterval=600"),
                List.of(socket.toString(), logDir.toString(), plugins.toString())));
        daemon = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String[] ready = readyLine(daemon.getInputStream());
        int httpPort = Integer.parseInt(ready[1]);
        int openAtStart = Integer.parseInt(ready[2]);
        assertThat(openAtStart)
                .as("descriptors the daemon's JVM holds before any host, of its " + OPEN_FILES_LIMIT)
                .isBetween(1, OPEN_FILES_LIMIT - 100);
        Path log = logDir.resolve("urom_daemon_dev.log");
        ServiceAddress address = ServiceAddress.unix(socket);
        assertThat(pluginNames(address)).containsExactly("minimal");

        try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), httpPort)) {
            probe.setSoTimeout((int) PATIENCE.toMillis());
            assertThat(get(probe, "/healthz")).isEqualTo("200 ok\n");

            exhaust(socket, probe, log);
            assertThat(get(probe, "/readyz")).isEqualTo("503 " + FAILING + "\n");

            closeHosts();
            await(
                    "the daemon says it accepts again",
                    () -> linesSaying(log, " INFO ", RECOVERED) == linesSaying(log, " ERROR ", FAILING));
            assertThat(get(probe, "/healthz")).isEqualTo("200 ok\n");
            assertThat(pluginNames(address)).as("a new host is served").containsExactly("minimal");
        }
        assertThat(linesSaying(log, " ERROR ", FAILING))
                .as("one line each time accepting starts failing")
                .isPositive();
        assertThat(linesSaying(log, " ERROR ", "still fails"))
                .as("within its first minute")
                .isZero();
    }

    private static long linesSaying(Path log, String level, String text) {
        return read(log)
                .lines()
                .filter(line -> line.contains(level) && line.contains(text))
                .count();
    }

    /**
     * Opens host connections that never say hello until the daemon cannot accept more and its
     * {@code /healthz} says so. A connection is opened only when the daemon's backlog has room (a
     * full one refuses it at once), and the daemon may get through one more accept when a
     * descriptor is freed for a moment, so this goes on until {@code /healthz} answers 503.
     */
    private void exhaust(Path socket, Socket probe, Path log) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the daemon's /healthz did not say its accept fails within " + PATIENCE
                        + ", with " + hosts.size() + " hosts connected");
            }
            assertThat(hosts.size()).as("host connections opened").isLessThan(OPEN_FILES_LIMIT + 100);
            if (read(log).contains(FAILING)) {
                String health = get(probe, "/healthz");
                if (!health.equals("200 ok\n")) {
                    assertThat(health).isEqualTo("503 " + FAILING + "\n");
                    return;
                }
            }
            SocketChannel host = SocketChannel.open(StandardProtocolFamily.UNIX);
            host.configureBlocking(false);
            try {
                host.connect(UnixDomainSocketAddress.of(socket));
                hosts.add(host);
            } catch (SocketException backlogFull) {
                host.close();
                Thread.sleep(10);
            }
        }
    }

    /** Connects, says hello and asks for the plugin list: the names in the reply. */
    private static List<String> pluginNames(ServiceAddress address) throws Exception {
        try (ControlClient client = ControlClient.connect(address)) {
            return ((PluginsReply) client.call(new PluginsRequest()))
                    .plugins().stream().map(ServicePlugin::name).toList();
        }
    }

    /** One HTTP/1.1 GET on a kept-alive connection: the status code, a space and the body. */
    private static String get(Socket connection, String path) throws IOException {
        OutputStream out = connection.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = connection.getInputStream();
        String status = line(in);
        int length = -1;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            if (header.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(
                        header.substring("content-length:".length()).strip());
            }
        }
        assertThat(length).as("the answer to %s has a length", path).isNotNegative();
        byte[] body = in.readNBytes(length);
        return status.split(" ")[1] + " " + new String(body, StandardCharsets.UTF_8);
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("the HTTP connection ended");
            }
            line.write(b);
        }
        return line.toString(StandardCharsets.US_ASCII).stripTrailing();
    }

    private static String[] readyLine(InputStream out) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(out, StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
                    try {
                        return reader.readLine();
                    } catch (IOException e) {
                        return null;
                    }
                })
                .get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(line).as("the daemon's first line").isNotNull().startsWith("READY ");
        return line.split(" ");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }
}
