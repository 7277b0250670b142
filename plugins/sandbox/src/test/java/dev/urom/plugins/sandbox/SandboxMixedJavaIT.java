package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.javaplugin.JavaPlugin;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.framework.worker.PluginLoader;
import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.plugins.sandbox.SandboxCommand.Bounce;
import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code worker_sandbox.so} and the packaged {@code worker_sandbox_java.jar}, both loaded by the
 * worker's standard loader: they talk to each other, and answer the same commands with the same bytes.
 */
class SandboxMixedJavaIT {
    private static final long MASK = 0xffff;

    @TempDir
    Path dir;

    @Test
    void theJavaPluginComesFromItsJarWithVersionOne() throws UromException {
        JavaPlugin plugin = JavaPluginLoader.instantiate(jar());
        assertThat(plugin.version()).isEqualTo(1);
        assertThat(plugin.instance().getClass().getName()).isEqualTo(SandboxPlugin.class.getName());
        assertThat(plugin.instance().getClass().getClassLoader()).isNotSameAs(SandboxPlugin.class.getClassLoader());
    }

    @Test
    void aNativeAndAJavaPluginPingPong() {
        try (SandboxJavaPeers peers = new SandboxJavaPeers(PluginLoader.standard(), so(), jar())) {
            for (int round = 0; round < 20; round++) {
                byte[] ping = ("ping " + round).getBytes(StandardCharsets.UTF_8);
                byte[] pong = ("pong " + round + "!").getBytes(StandardCharsets.UTF_8);
                long recvB = peers.context();
                peers.submit(peers.b, new TagRecv(recvB, 0, 64, 0x1234, MASK, 0));
                assertThat(peers.call(peers.a, new TagSend(peers.context(), SandboxJavaPeers.DOMAIN_B, 0, ping.length, 0xAA_1234L, 0, ping))
                        .status()).isEqualTo(UromStatus.SUCCESS);
                assertThat(peers.await(peers.b, recvB).payload())
                        .isEqualTo(new SandboxNotification.TagRecvDone(recvB, 1, ping.length, 0xAA_1234L, UromStatus.SUCCESS, ping).encode());

                long recvA = peers.context();
                peers.submit(peers.a, new TagRecv(recvA, 0, 64, 0x5678, MASK, 0));
                assertThat(peers.call(peers.b, new TagSend(peers.context(), SandboxJavaPeers.DOMAIN_A, 0, pong.length, 0x5678, 0, pong))
                        .status()).isEqualTo(UromStatus.SUCCESS);
                assertThat(peers.await(peers.a, recvA).payload())
                        .isEqualTo(new SandboxNotification.TagRecvDone(recvA, 1, pong.length, 0x5678, UromStatus.SUCCESS, pong).encode());
            }
        }
    }

    @Test
    void bothPluginsAnswerTheSameCommandsWithTheSameBytes() throws IOException {
        Path shm = Files.write(Path.of("/dev/shm", "urom-sandbox-mixed-" + UUID.randomUUID()), new byte[256]);
        try (ShmScratch links = new ShmScratch()) {
            List<SandboxCommand> commands = commandSequence(shm);
            commands.addAll(symbolicLinkMaps(links));
            List<String> nativeRun = runAlone(so(), commands);
            Files.write(shm, new byte[256]);
            List<String> javaRun = runAlone(jar(), commands);

            assertThat(javaRun).isEqualTo(nativeRun);
            assertThat(nativeRun).hasSize(commands.size())
                    .anyMatch(line -> line.contains("status=SUCCESS"))
                    .anyMatch(line -> line.contains("status=TOO_BIG"))
                    .anyMatch(line -> line.contains("status=NOT_PERMITTED"))
                    .anyMatch(line -> line.contains("status=NOT_FOUND"))
                    .anyMatch(line -> line.contains("status=INVALID_VALUE"));
        } finally {
            Files.deleteIfExists(shm);
        }
    }

    /**
     * A region whose file shrinks, and (as root, who alone can make one) a file of another user:
     * each plugin in a child JVM of its own with the same {@code UROM_OWNER_UID}, the answers
     * compared byte for byte.
     */
    @Test
    void bothPluginsAnswerAShrunkRegionAndAForeignFileTheSameWay() throws IOException {
        List<String> nativeRun = shrinkAndForeignRun(so());
        List<String> javaRun = shrinkAndForeignRun(jar());

        assertThat(javaRun).isEqualTo(nativeRun);
        assertThat(nativeRun).anyMatch(line -> line.contains("status=IO_FAILED"));
        if (OwnerFixtures.runningAsRoot()) {
            assertThat(nativeRun).anyMatch(line -> line.startsWith("context=2 status=NOT_PERMITTED"));
        }
    }

    private List<String> shrinkAndForeignRun(Path plugin) throws IOException {
        List<String> lines = new ArrayList<>();
        try (ShmScratch shm = new ShmScratch();
                SandboxChildProcess child = SandboxChildProcess.start(plugin, Map.of(FileOwners.VARIABLE, "12345"), dir)) {
            Path region = shm.file(new byte[1 << 20]);
            lines.add(child.call(new MemMap(1, 1 << 20, bytes(region))).line());
            if (OwnerFixtures.runningAsRoot()) {
                Path foreign = OwnerFixtures.chown(shm.file(new byte[4096]), OwnerFixtures.NOBODY);
                lines.add(child.call(new MemMap(2, 4096, bytes(foreign))).line());
            }
            try (FileChannel channel = FileChannel.open(region, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            lines.add(child.call(new TagSend(3, 0, 0, 4096, 0x61, 1, new byte[0])).line());
            child.submit(new TagRecv(4, 100, 64, 0x62, -1, 1));
            lines.add(child.call(new TagSend(5, 0, 0, 3, 0x62, 0, new byte[] {1, 2, 3})).line());
            lines.add(child.await(4).line());
            child.submit(new TagRecv(6, 0, 64, 0x63, -1, 0));
            lines.add(child.call(new TagSend(7, 0, 0, 2, 0x63, 0, new byte[] {4, 5})).line());
            lines.add(child.await(6).line());
            assertThat(child.finish()).as("exit status of the child with %s", plugin.getFileName()).isZero();
        }
        return lines;
    }

    /** MEM_MAPs of a file outside /dev/shm through a link in it, in a subdirectory of it, and through a linked directory. */
    private List<SandboxCommand> symbolicLinkMaps(ShmScratch shm) throws IOException {
        Path outside = Files.createDirectory(dir.resolve("outside"));
        Path target = Files.write(outside.resolve("target"), new byte[256]);
        Path sub = shm.directory();
        return List.of(
                new MemMap(20, 256, bytes(shm.link(target))),
                new MemMap(21, 256, bytes(ShmScratch.link(sub.resolve("link"), target))),
                new MemMap(22, 256, bytes(ShmScratch.link(sub.resolve("hop"), outside).resolve("target"))));
    }

    private static byte[] bytes(Path path) {
        return path.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Commands for a plugin alone in its domain (id 0 is itself, anything else unknown). */
    private List<SandboxCommand> commandSequence(Path shm) {
        byte[] shmPath = shm.toString().getBytes(StandardCharsets.UTF_8);
        List<SandboxCommand> commands = new ArrayList<>();
        commands.add(new MemMap(1, 256, shmPath));
        commands.add(new MemMap(2, 257, shmPath));
        commands.add(new MemMap(3, 0, shmPath));
        commands.add(new MemMap(4, 16, dir.resolve("x").toString().getBytes(StandardCharsets.UTF_8)));
        commands.add(new MemMap(5, 16, "/dev/shm/../x".getBytes(StandardCharsets.UTF_8)));
        commands.add(new MemMap(6, 16, ("/dev/shm/urom-missing-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8)));
        commands.add(new MemMap(7, 128, shmPath));
        commands.add(new TagSend(8, 5, 0, 1, 1, 0, new byte[] {1}));
        commands.add(new TagSend(9, 0, 0, 8, 1, 3, new byte[0]));
        commands.add(new TagSend(10, 0, 250, 8, 1, 1, new byte[0]));
        commands.add(new TagRecv(11, 0, 300, 1, -1, 1));
        commands.add(new TagRecv(12, 0, 8, 0x1234, MASK, 0));
        commands.add(new TagSend(13, 0, 0, 3, 0xFF_1234L, 0, new byte[] {9, 8, 7}));
        commands.add(new TagSend(14, 0, 0, 9, 0x42, 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9}));
        commands.add(new TagRecv(15, 0, 4, 0x42, -1, 0));
        commands.add(new TagSend(16, 0, 0, 4, 0x43, 0, new byte[] {4, 3, 2, 1}));
        commands.add(new TagRecv(17, 16, 64, 0x43, -1, 2));
        commands.add(new TagSend(18, 0, 16, 4, 0x44, 2, new byte[0]));
        commands.add(new TagRecv(19, 100, 4, 0x44, -1, 1));
        commands.add(new Bounce(20, 5, 8, 0x45, 10, SandboxCommand.BOUNCE_INITIATOR));
        commands.add(new Bounce(21, 0, 65537, 0x45, 10, SandboxCommand.BOUNCE_INITIATOR));
        commands.add(new Bounce(22, 0, 8, 0x45, 0, SandboxCommand.BOUNCE_RESPONDER));
        commands.add(new Bounce(23, 0, 8, 0x45, 10, 2));
        return commands;
    }

    /** Runs {@code commands} one by one on a host alone in its domain; one line per answer, packed bytes included. */
    private List<String> runAlone(Path plugin, List<SandboxCommand> commands) {
        long pluginId = 1L << 6;
        WorkerHost[] self = new WorkerHost[1];
        DomainLookups domain = new SandboxChild.Alone(self, pluginId);
        List<String> lines = new ArrayList<>();
        try (WorkerHost host = WorkerHost.open(3, List.of(new PluginSpec(plugin, pluginId)), PluginLoader.standard(),
                WorkerHostConfig.defaults().withDomain(domain))) {
            self[0] = host;
            assertThat(host.failures()).isEmpty();
            List<WorkerNotification> answers = new ArrayList<>();
            for (SandboxCommand command : commands) {
                host.submit(new WorkerCommand(5, pluginId, command.context(), command.encode()));
            }
            long deadline = System.nanoTime() + SandboxJavaPeers.TIMEOUT.toNanos();
            while (answers.size() < commands.size()) {
                if (host.progress(answers::add) == 0 && System.nanoTime() - deadline > 0) {
                    throw new AssertionError("only " + answers.size() + " of " + commands.size() + " answers from " + plugin.getFileName());
                }
            }
            answers.sort((x, y) -> Long.compare(x.uromContext(), y.uromContext()));
            for (WorkerNotification n : answers) {
                byte[] packed;
                try {
                    packed = host.plugin(pluginId).orElseThrow().packNotification(n);
                } catch (UromException e) {
                    throw new AssertionError("packing failed: " + e.getMessage(), e);
                }
                lines.add("context=" + n.uromContext() + " status=" + n.status() + " packed=" + HexFormat.of().formatHex(packed));
            }
        }
        return lines;
    }

    private static Path so() {
        return NativeFixtures.builtFile("urom.sandbox.so");
    }

    private static Path jar() {
        return NativeFixtures.builtFile("urom.sandbox.jar");
    }
}
