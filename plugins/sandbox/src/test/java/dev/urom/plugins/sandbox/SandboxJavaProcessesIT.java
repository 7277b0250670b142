// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxNativeCodec.received;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.sendStatus;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagRecv;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendInline;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Native;
import dev.urom.framework.javaplugin.JavaPlugin;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.plugins.sandbox.SandboxNativeCodec.Received;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The built {@code worker_sandbox_java.jar}: its bundled UCP binding loads in the plugin's class
 * loader with the worker's JNA, and two worker processes ({@link SandboxChildProcess}, each with the
 * jar) exchange messages over UCP and see each other die.
 */
class SandboxJavaProcessesIT {
    private static final long MASK = 0xffff;

    @TempDir
    Path dir;

    @Test
    void theJarBundlesTheUcpBindingAndTakesJnaFromTheWorker()
            throws UromException, IOException, ClassNotFoundException {
        Path jar = NativeFixtures.builtFile("urom.sandbox.jar");
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            assertThat(zip.getEntry("dev/urom/ucx/UcpWorker.class"))
                    .as("the bundled binding")
                    .isNotNull();
            assertThat(zip.stream()
                            .map(e -> e.getName())
                            .filter(n -> n.startsWith("com/sun/jna/") || n.startsWith("dev/urom/spi/")))
                    .as("JNA and the SPI are the worker's")
                    .isEmpty();
        }
        JavaPlugin plugin = JavaPluginLoader.instantiate(jar);
        try {
            ClassLoader loader = plugin.instance().getClass().getClassLoader();
            assertThat(loader.loadClass("dev.urom.ucx.UcpWorker").getClassLoader())
                    .as("the binding's loader")
                    .isSameAs(loader);
            assertThat(loader.loadClass("com.sun.jna.Native")).as("JNA").isSameAs(Native.class);
            assertThat(plugin.instance().transport()).contains("ucp-tag");
        } finally {
            plugin.close();
        }
    }

    @Test
    void twoWorkerProcessesPingPongOverUcp() {
        try (SandboxChildProcess a = start();
                SandboxChildProcess b = start()) {
            introduce(a, b);
            byte[] ping = "ping".getBytes(StandardCharsets.US_ASCII);
            byte[] pong = new byte[300_000];
            new Random(5).nextBytes(pong);

            b.submit(1, tagRecv(1, 0, 16, 0x1234, MASK, 0));
            a.submit(2, tagSendInline(2, 1, 0x1234, ping));
            Received atB = received(b.await(1).notification());
            assertThat(sendStatus(a.await(2).notification(), 2)).isEqualTo(UromStatus.SUCCESS);
            assertThat(atB.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(atB.senderTag()).isEqualTo(0x1234);
            assertThat(atB.data()).isEqualTo(ping);

            a.submit(3, tagRecv(3, 0, pong.length, 0x5678, MASK, 0));
            b.submit(4, tagSendInline(4, 1, 0x5678, pong));
            Received atA = received(a.await(3).notification());
            assertThat(sendStatus(b.await(4).notification(), 4)).isEqualTo(UromStatus.SUCCESS);
            assertThat(atA.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(atA.data()).isEqualTo(pong);
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    @Test
    void aKilledPeerFailsTheSendInFlightWithConnectionReset() {
        try (SandboxChildProcess a = start();
                SandboxChildProcess b = start()) {
            introduce(a, b);
            b.submit(1, tagRecv(1, 0, 8, 0x41, MASK, 0));
            assertThat(sendStatus(
                            a.call(2, tagSendInline(2, 1, 0x41, new byte[] {1})).notification(), 2))
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(received(b.await(1).notification()).status()).isEqualTo(UromStatus.SUCCESS);
            // 1 MiB goes by rendezvous: it waits for a receive at B that never comes.
            a.submit(3, tagSendInline(3, 1, 0x42, new byte[1 << 20]));
            a.submit(4, tagRecv(4, 0, 8, 0x43, MASK, 0));
            assertThat(sendStatus(
                            a.call(5, tagSendInline(5, 0, 0x43, new byte[] {7})).notification(), 5))
                    .as("a send to itself, after A took the 1 MiB send")
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(received(a.await(4).notification()).data()).containsExactly(7);

            b.kill();

            assertThat(sendStatus(a.await(3).notification(), 3)).isEqualTo(UromStatus.CONNECTION_RESET);
            assertThat(a.finish()).as("A's exit status").isZero();
        }
    }

    private static void introduce(SandboxChildProcess a, SandboxChildProcess b) {
        a.peer(b.address());
        b.peer(a.address());
    }

    private SandboxChildProcess start() {
        SandboxChildProcess child =
                SandboxChildProcess.start(NativeFixtures.builtFile("urom.sandbox.jar"), Map.of(), dir);
        assertThat(child.openResult()).isEqualTo("opened");
        return child;
    }
}
