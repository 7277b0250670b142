// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.host.Notification;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.host.Worker;
import dev.urom.nativebridge.testkit.HostProcessFixture;
import dev.urom.nativebridge.testkit.HostProcessFixture.Answer;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.testing.Await;
import dev.urom.service.testkit.TestKeys;
import dev.urom.service.testkit.TestWorkers;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who a host is, end to end: a real daemon, a real worker process, a C plugin ({@code
 * host_process_plugin.c}) and a Java plugin ({@link HostProcessJavaPlugin}) that answer a command
 * with the host process their worker tells them; the host is this test's JVM, through urom-host.
 * Over the daemon's Unix socket both learn this JVM's pid (and the C plugin reads a buffer of this
 * JVM with process_vm_readv where the kernel's ptrace rule lets it); over TCP the connection has no
 * local process.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class HostProcessEndToEndTest {
    private static final int SELF_PID = (int) ProcessHandle.current().pid();
    private static final int EPERM = 1;

    @TempDir
    static Path pluginDir;

    @TempDir
    Path dir;

    private Daemon daemon;
    private UromService service;
    private Worker worker;
    private long nativeId;
    private long javaId;

    @BeforeAll
    static void buildPlugins() throws Exception {
        HostProcessFixture.compile(pluginDir, "host_process.so");
        WorkerFixtures.javaPluginJar(
                pluginDir.resolve("host_process_java.jar"), "host_process_java", "1", HostProcessJavaPlugin.class);
    }

    @AfterEach
    void stopDaemon() {
        if (worker != null) {
            worker.close();
        }
        if (service != null) {
            service.close();
        }
        if (daemon != null) {
            daemon.close();
        }
        Configurator.reconfigure();
    }

    private Worker startWorker(DaemonConfig config, ServiceConnector connector) throws Exception {
        daemon = Daemon.start(Daemon.configureLogging(config.toBuilder()
                .logDir(dir.resolve("log"))
                .pluginPath(pluginDir.toString())
                .build()));
        service = connector.connect(daemon.address().toString());
        for (Plugin p : service.plugins()) {
            if (p.name().equals("host_process")) {
                nativeId = p.id();
            } else if (p.name().equals("host_process_java")) {
                javaId = p.id();
            }
        }
        assertThat(nativeId).as("the C plugin's id").isNotZero();
        assertThat(javaId).as("the Java plugin's id").isNotZero();
        worker = service.newWorker()
                .plugins(nativeId | javaId)
                .build()
                .start()
                .get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        return worker;
    }

    @FunctionalInterface
    private interface ServiceConnector {
        UromService connect(String address) throws Exception;
    }

    private Answer askNative(Worker worker, byte[] command) throws Exception {
        Notification notification = worker.submit(nativeId, command).get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(notification.status()).isEqualTo(UromStatus.SUCCESS);
        return HostProcessFixture.answer(notification.payload());
    }

    /** The Java plugin's answer for {@code destId} (0: the command's own): its status and the pid. */
    private int[] askJava(Worker worker, long destId) throws Exception {
        byte[] command = ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(destId)
                .array();
        Notification notification = worker.submit(javaId, command).get(Await.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        assertThat(notification.status()).isEqualTo(UromStatus.SUCCESS);
        ByteBuffer answer = ByteBuffer.wrap(notification.payload()).order(ByteOrder.LITTLE_ENDIAN);
        return new int[] {answer.getInt(0), answer.getInt(4)};
    }

    @Test
    void overAUnixSocketBothPluginsLearnThisJvmAsTheirHost() throws Exception {
        DaemonConfig config = DaemonConfig.builder()
                .listen(ServiceAddress.unix(dir.resolve("urom.sock")))
                .security(
                        TestWorkers.security().toBuilder().dumpableWorkers(true).build())
                .build();
        Worker worker = startWorker(config, UromService::connect);
        Memory buffer = new Memory(64);
        byte[] pattern = new byte[64];
        for (int i = 0; i < pattern.length; i++) {
            pattern[i] = (byte) (i * 5 + 1);
        }
        buffer.write(0, pattern, 0, pattern.length);

        Answer answer = askNative(
                worker, HostProcessFixture.command(HostProcessFixture.SELF, 0, Pointer.nativeValue(buffer), 64));

        assertThat(answer.available())
                .as("the worker provides urom_worker_host_process")
                .isTrue();
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.pid()).as("the C plugin's host").isEqualTo(SELF_PID);
        assertThat(answer.alive()).as("its pidfd names a live process").isEqualTo(1);
        assertThat(answer.closeOnExec()).isTrue();
        if (answer.read() != -EPERM || yamaPtraceScope() == 0) {
            assertThat(answer.read()).as("process_vm_readv into the host").isEqualTo(64);
            assertThat(answer.bytes()).isEqualTo(pattern);
        }
        assertThat(askJava(worker, 0))
                .as("the Java plugin's status and host pid")
                .containsExactly(UromStatus.SUCCESS.code(), SELF_PID);

        assertThat(askNative(worker, HostProcessFixture.command(HostProcessFixture.OTHER, 999, 0, 0))
                        .status())
                .as("a connection id the worker never had")
                .isEqualTo(UromStatus.NOT_FOUND);
        assertThat(askJava(worker, 999)[0]).isEqualTo(UromStatus.NOT_FOUND.code());
        assertThat(askNative(worker, HostProcessFixture.command(HostProcessFixture.NULL_HOST, 0, 0, 0))
                        .status())
                .isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(askNative(worker, HostProcessFixture.command(HostProcessFixture.NULL_CTX, 0, 0, 0))
                        .status())
                .isEqualTo(UromStatus.INVALID_VALUE);
        long workerPid = daemon.workers().get(0).pid();
        assertThat(pidfds(workerPid))
                .as("pidfds in the worker: its one connection's, none the plugins were handed")
                .isEqualTo(1);
        Reference.reachabilityFence(buffer);
    }

    @Test
    void overTcpTheConnectionHasNoLocalProcess() throws Exception {
        Path keys = TestKeys.directory(dir, "alice");
        DaemonConfig config = DaemonConfig.builder()
                .listen(ServiceAddress.tcp("127.0.0.1", 0))
                .security(TestWorkers.security().toBuilder().authKeys(keys).build())
                .build();
        Worker worker = startWorker(config, address -> UromService.connect(address, TestKeys.key(keys, "alice")));

        Answer answer = askNative(worker, HostProcessFixture.self());
        assertThat(answer.available()).isTrue();
        assertThat(answer.status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(askJava(worker, 0)[0]).isEqualTo(UromStatus.NOT_SUPPORTED.code());
    }

    /**
     * Yama's ptrace_scope, 0 without Yama: from 1 on, the worker (not the host's ancestor) may be
     * refused process_vm_readv into the host (EPERM), by the kernel's rule, not the framework's.
     */
    private static int yamaPtraceScope() throws IOException {
        Path scope = Path.of("/proc/sys/kernel/yama/ptrace_scope");
        return Files.exists(scope) ? Integer.parseInt(Files.readString(scope).strip()) : 0;
    }

    /** How many pidfds process {@code pid} holds (it must be dumpable, or this test root). */
    private static long pidfds(long pid) throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return fds.filter(fd -> {
                        try {
                            return Files.readSymbolicLink(fd).toString().equals("anon_inode:[pidfd]");
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .count();
        }
    }
}
