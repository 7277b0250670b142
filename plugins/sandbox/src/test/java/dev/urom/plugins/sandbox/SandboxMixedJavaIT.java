// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxWorkers.await;
import static dev.urom.plugins.sandbox.SandboxWorkers.call;
import static dev.urom.plugins.sandbox.SandboxWorkers.javaJar;
import static dev.urom.plugins.sandbox.SandboxWorkers.nativePlugin;
import static dev.urom.plugins.sandbox.SandboxWorkers.send;
import static dev.urom.plugins.sandbox.TagCommands.tagRecv;
import static dev.urom.plugins.sandbox.TagCommands.tagSend;
import static dev.urom.testkit.PluginAssertions.assertThat;

import dev.urom.framework.javaplugin.JavaPlugin;
import dev.urom.framework.javaplugin.JavaPluginLoader;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.plugins.sandbox.SandboxCommand.Bounce;
import dev.urom.plugins.sandbox.SandboxCommand.MemMap;
import dev.urom.plugins.sandbox.SandboxCommand.TagRecv;
import dev.urom.plugins.sandbox.SandboxCommand.TagSend;
import dev.urom.plugins.sandbox.SandboxNotification.TagRecvDone;
import dev.urom.plugins.sandbox.SandboxNotification.TagSendDone;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code worker_sandbox.so} and the packaged {@code worker_sandbox_java.jar}, both loaded by the
 * worker's standard loader: they talk to each other, and answer the same commands with the same bytes,
 * our layout's and the DOCA-sized ones'.
 */
class SandboxMixedJavaIT {
    private static final long MASK = 0xffff;
    private static final long DOMAIN_A = 0;
    private static final long DOMAIN_B = 1;

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
        try (TestDomain domain = PluginTestKit.domain(nativePlugin(), javaJar())) {
            TestWorker a = domain.worker(0);
            TestWorker b = domain.worker(1);
            long context = 1000;
            for (int round = 0; round < 20; round++) {
                byte[] ping = ("ping " + round).getBytes(StandardCharsets.UTF_8);
                byte[] pong = ("pong " + round + "!").getBytes(StandardCharsets.UTF_8);
                long recvB = context++;
                send(b, tagRecv(recvB).tag(0x1234, MASK).count(64).build());
                assertThat(call(
                                a,
                                tagSend(context++)
                                        .to(DOMAIN_B)
                                        .tag(0xAA_1234L)
                                        .inline(ping)
                                        .build()))
                        .isSuccessful();
                assertThat(await(b, recvB))
                        .hasPayload(
                                new TagRecvDone(recvB, 1, ping.length, 0xAA_1234L, UromStatus.SUCCESS, ping).encode());

                long recvA = context++;
                send(a, tagRecv(recvA).tag(0x5678, MASK).count(64).build());
                assertThat(call(
                                b,
                                tagSend(context++)
                                        .to(DOMAIN_A)
                                        .tag(0x5678)
                                        .inline(pong)
                                        .build()))
                        .isSuccessful();
                assertThat(await(a, recvA))
                        .hasPayload(new TagRecvDone(recvA, 1, pong.length, 0x5678, UromStatus.SUCCESS, pong).encode());
            }
        }
    }

    @Test
    void bothPluginsAnswerTheSameCommandsWithTheSameBytes() throws IOException {
        Path shm = Files.write(Path.of("/dev/shm", "urom-sandbox-mixed-" + UUID.randomUUID()), new byte[256]);
        try (ShmScratch links = new ShmScratch()) {
            List<SandboxCommand> commands = commandSequence(shm);
            commands.addAll(symbolicLinkMaps(links));
            List<String> nativeRun = runAlone(nativePlugin(), commands);
            Files.write(shm, new byte[256]);
            List<String> javaRun = runAlone(javaJar(), commands);

            assertThat(javaRun).isEqualTo(nativeRun);
            assertThat(nativeRun)
                    .hasSize(commands.size())
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

    /**
     * DOCA-sized TAG_SEND and TAG_RECV (fixed parts of 64 and 72 bytes, the bytes after our fields
     * not zero), mixed with ours, and fixed parts of no known size, on each plugin alone: both give
     * the same answers, byte for byte, and those are DOCA's layout for a DOCA-sized command and ours
     * otherwise; a DOCA MEM_MAP (an exported memory handle) stays INVALID_VALUE.
     */
    @Test
    void bothPluginsAnswerDocaSizedCommandsWithTheSameBytes() throws IOException {
        Path shm = Files.write(Path.of("/dev/shm", "urom-sandbox-doca-" + UUID.randomUUID()), new byte[256]);
        try {
            byte[] three = {1, 2, 3};
            byte[] five = {5, 4, 3, 2, 1};
            byte[] sixteen = new byte[16];
            Arrays.fill(sixteen, (byte) 0x16);
            byte[] eight = {8, 7, 6, 5, 4, 3, 2, 1};
            List<Sent> commands = new ArrayList<>();
            Map<Long, WorkerNotification> expected = new HashMap<>();
            // a DOCA-sized receive and send of each size, inline
            commands.add(doca(tagRecv(1).tag(0x51, -1).count(8).fixedBytes(64).build()));
            expected.put(
                    1L, answer(1, UromStatus.SUCCESS, new TagRecvDone(1, 1, 3, 0x51, UromStatus.SUCCESS, three, true)));
            commands.add(doca(tagSend(2).tag(0x51).inline(three).fixedBytes(64).build()));
            expected.put(2L, answer(2, UromStatus.SUCCESS, new TagSendDone(2, UromStatus.SUCCESS, true)));
            commands.add(doca(tagRecv(3).tag(0x52, -1).count(64).fixedBytes(72).build()));
            expected.put(
                    3L, answer(3, UromStatus.SUCCESS, new TagRecvDone(3, 1, 5, 0x52, UromStatus.SUCCESS, five, true)));
            commands.add(doca(tagSend(4).tag(0x52).inline(five).fixedBytes(72).build()));
            expected.put(4L, answer(4, UromStatus.SUCCESS, new TagSendDone(4, UromStatus.SUCCESS, true)));
            // a DOCA-sized receive shorter than the message (ours): UCS_ERR_MESSAGE_TRUNCATED in 48 bytes
            commands.add(doca(tagRecv(5).tag(0x53, -1).count(2).fixedBytes(64).build()));
            expected.put(
                    5L,
                    answer(
                            5,
                            UromStatus.TOO_BIG,
                            new TagRecvDone(5, 1, 0, 0x53, UromStatus.TOO_BIG, new byte[0], true)));
            commands.add(
                    doca(tagSend(6).tag(0x53).inline(new byte[] {1, 2, 3, 4}).build()));
            expected.put(6L, answer(6, UromStatus.SUCCESS, new TagSendDone(6, UromStatus.SUCCESS)));
            // each command is answered in its own layout; the send is 72 bytes in all, DOCA's 64 and 8 of data
            commands.add(doca(tagRecv(7).tag(0x54, -1).count(8).build()));
            expected.put(7L, answer(7, UromStatus.SUCCESS, new TagRecvDone(7, 1, 8, 0x54, UromStatus.SUCCESS, eight)));
            commands.add(doca(tagSend(8).tag(0x54).inline(eight).fixedBytes(64).build()));
            expected.put(8L, answer(8, UromStatus.SUCCESS, new TagSendDone(8, UromStatus.SUCCESS, true)));
            // 72 bytes in all, 16 of them data: ours (length - count is 56)
            commands.add(doca(tagRecv(9).tag(0x55, -1).count(64).fixedBytes(72).build()));
            expected.put(
                    9L,
                    answer(9, UromStatus.SUCCESS, new TagRecvDone(9, 1, 16, 0x55, UromStatus.SUCCESS, sixteen, true)));
            commands.add(doca(tagSend(10).tag(0x55).inline(sixteen).build()));
            expected.put(10L, answer(10, UromStatus.SUCCESS, new TagSendDone(10, UromStatus.SUCCESS)));
            // regions: a DOCA-sized send from one (exactly 72 bytes) into a DOCA-sized receive into it
            commands.add(doca(new MemMap(11, 256, shm.toString().getBytes(StandardCharsets.UTF_8))));
            expected.put(11L, answer(11, UromStatus.SUCCESS, new SandboxNotification.MemMapDone(11, 1)));
            commands.add(doca(tagRecv(12)
                    .tag(0x56, -1)
                    .count(16)
                    .buffer(100)
                    .region(1)
                    .fixedBytes(64)
                    .build()));
            expected.put(
                    12L,
                    answer(
                            12,
                            UromStatus.SUCCESS,
                            new TagRecvDone(12, 100, 16, 0x56, UromStatus.SUCCESS, new byte[0], true)));
            commands.add(doca(
                    tagSend(13).tag(0x56).count(16).region(1).fixedBytes(72).build()));
            expected.put(13L, answer(13, UromStatus.SUCCESS, new TagSendDone(13, UromStatus.SUCCESS, true)));
            // refusals, answered by the worker with no payload, as for ours
            commands.add(new Sent(
                    14, resized(tagRecv(14).tag(0x57, -1).count(8).build().encode(), 88, new byte[0])));
            expected.put(14L, refusal(14, UromStatus.INVALID_VALUE));
            commands.add(new Sent(
                    15, resized(tagSend(15).tag(0x57).inline(three).build().encode(), 96, three)));
            expected.put(15L, refusal(15, UromStatus.INVALID_VALUE));
            commands.add(new Sent(
                    16, resized(tagSend(16).tag(0x57).count(8).region(1).build().encode(), 80, new byte[0])));
            expected.put(16L, refusal(16, UromStatus.INVALID_VALUE));
            commands.add(doca(tagSend(17)
                    .to(5)
                    .tag(0x57)
                    .inline(new byte[] {1})
                    .fixedBytes(64)
                    .build()));
            expected.put(17L, refusal(17, UromStatus.NOT_FOUND));
            commands.add(doca(
                    tagRecv(18).tag(0x57, -1).count(8).region(9).fixedBytes(72).build()));
            expected.put(18L, refusal(18, UromStatus.NOT_FOUND));
            commands.add(new Sent(19, docaMemMap(19)));
            expected.put(19L, refusal(19, UromStatus.INVALID_VALUE));

            List<Answer> nativeRun = answersAlone(nativePlugin(), commands);
            Files.write(shm, new byte[256]);
            List<Answer> javaRun = answersAlone(javaJar(), commands);

            assertThat(javaRun.stream().map(Answer::line))
                    .containsExactlyElementsOf(
                            nativeRun.stream().map(Answer::line).toList());
            assertThat(nativeRun).hasSize(commands.size());
            for (Answer answer : nativeRun) {
                WorkerNotification n = answer.notification();
                WorkerNotification wanted = expected.get(n.uromContext());
                assertThat(n.status())
                        .as("status of context %d", n.uromContext())
                        .isEqualTo(wanted.status());
                assertThat(HexFormat.of().formatHex(n.payload()))
                        .as("payload of context %d", n.uromContext())
                        .isEqualTo(HexFormat.of().formatHex(wanted.payload()));
                assertThat(HexFormat.of().formatHex(answer.packed()))
                        .as("packed answer to context %d", n.uromContext())
                        .isEqualTo(HexFormat.of().formatHex(n.pack()));
            }
            assertThat(nativeRun.get(1).packed())
                    .as("a DOCA TAG_SEND answer packed")
                    .hasSize(WorkerNotification.HEADER_BYTES + 48);
        } finally {
            Files.deleteIfExists(shm);
        }
    }

    /**
     * A DOCA-sized send from one worker to another, received by a DOCA-sized receive, and one longer
     * than its receive (UCS_ERR_MESSAGE_TRUNCATED in a 48-byte answer), both ways, between every pair
     * of the two plugins: the same answers from each, in DOCA's layout.
     */
    @Test
    void docaSizedMessagesBetweenTwoWorkersOfEitherPluginGetDocasAnswers() {
        Map<String, List<String>> runs = new LinkedHashMap<>();
        for (List<PluginTestKit.Builder> pair : List.of(
                List.of(nativePlugin(), nativePlugin()),
                List.of(nativePlugin(), javaJar()),
                List.of(javaJar(), nativePlugin()),
                List.of(javaJar(), javaJar()))) {
            try (TestDomain domain = PluginTestKit.domain(pair.get(0), pair.get(1))) {
                runs.put(
                        domain.worker(0).pluginName() + " to "
                                + domain.worker(1).pluginName(),
                        docaExchange(domain));
            }
        }
        assertThat(runs).hasSize(4);
        List<String> first = runs.values().iterator().next();
        runs.forEach((pair, lines) -> assertThat(lines).as(pair).isEqualTo(first));
    }

    /**
     * The exchanges of {@link #docaSizedMessagesBetweenTwoWorkersOfEitherPluginGetDocasAnswers}, A to
     * B then B to A; the same contexts in every domain, so that the packed answers compare.
     */
    private static List<String> docaExchange(TestDomain domain) {
        List<String> lines = new ArrayList<>();
        long context = 1000;
        for (boolean aToB : List.of(true, false)) {
            TestWorker from = domain.worker(aToB ? 0 : 1);
            TestWorker to = domain.worker(aToB ? 1 : 0);
            long toDomain = to.domainId();
            int receiveFixed = aToB ? 64 : 72;
            int sendFixed = aToB ? 72 : 64;
            byte[] data = ("doca " + (aToB ? "a to b" : "b to a")).getBytes(StandardCharsets.UTF_8);

            long recv = context++;
            send(
                    to,
                    tagRecv(recv)
                            .tag(0x61, -1)
                            .count(64)
                            .fixedBytes(receiveFixed)
                            .build());
            long send = context++;
            WorkerNotification sent = call(
                    from,
                    tagSend(send)
                            .to(toDomain)
                            .tag(0x61)
                            .inline(data)
                            .fixedBytes(sendFixed)
                            .build());
            assertThat(sent).isSuccessful().hasPayload(new TagSendDone(send, UromStatus.SUCCESS, true).encode());
            assertThat(sent.payload()).hasSize(48);
            WorkerNotification received = await(to, recv);
            assertThat(received)
                    .isSuccessful()
                    .hasPayload(new TagRecvDone(recv, 1, data.length, 0x61, UromStatus.SUCCESS, data, true).encode());
            assertThat(received.payload()).hasSize(48 + data.length);
            lines.add(line(from, sent));
            lines.add(line(to, received));

            long shortRecv = context++;
            send(
                    to,
                    tagRecv(shortRecv)
                            .tag(0x62, -1)
                            .count(2)
                            .fixedBytes(sendFixed)
                            .build());
            long longSend = context++;
            WorkerNotification longSent = call(
                    from,
                    tagSend(longSend)
                            .to(toDomain)
                            .tag(0x62)
                            .inline(data)
                            .fixedBytes(receiveFixed)
                            .build());
            assertThat(longSent).hasPayload(new TagSendDone(longSend, UromStatus.SUCCESS, true).encode());
            WorkerNotification truncated = await(to, shortRecv);
            assertThat(truncated)
                    .as("the descriptor's status stays ours")
                    .hasStatus(UromStatus.TOO_BIG)
                    .hasPayload(new TagRecvDone(shortRecv, 1, 0, 0x62, UromStatus.TOO_BIG, new byte[0], true).encode());
            assertThat(truncated.payload()).hasSize(48);
            assertThat(ByteBuffer.wrap(truncated.payload())
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .getInt(40))
                    .as("UCS_ERR_MESSAGE_TRUNCATED")
                    .isEqualTo(-9);
            lines.add(line(from, longSent));
            lines.add(line(to, truncated));
        }
        return lines;
    }

    private static String line(TestWorker worker, WorkerNotification n) {
        byte[] packed = worker.pack(n);
        assertThat(packed).as("packed answer to context %d", n.uromContext()).isEqualTo(n.pack());
        return "context=" + n.uromContext() + " status=" + n.status() + " packed="
                + HexFormat.of().formatHex(packed);
    }

    /** A DOCA-sized command with bytes 56.. of its fixed part not zero (they are ignored); any other command as it encodes. */
    private static Sent doca(SandboxCommand command) {
        byte[] bytes = command.encode();
        int fixed = command instanceof TagSend send
                ? send.fixedBytes()
                : command instanceof TagRecv receive ? receive.fixedBytes() : 0;
        for (int i = SandboxCommand.TAG_FIXED_BYTES; i < fixed; i++) {
            bytes[i] = (byte) (0xA5 ^ i);
        }
        return new Sent(command.context(), bytes);
    }

    /** {@code ours}'s first 56 bytes, zeros up to {@code fixed}, then {@code data}. */
    private static byte[] resized(byte[] ours, int fixed, byte[] data) {
        byte[] bytes = new byte[fixed + data.length];
        System.arraycopy(ours, 0, bytes, 0, SandboxCommand.TAG_FIXED_BYTES);
        System.arraycopy(data, 0, bytes, fixed, data.length);
        return bytes;
    }

    /**
     * DOCA's MEM_MAP as a host built with UCX 1.14 or later sends it: {@code type}, {@code context},
     * a 48-byte {@code ucp_mem_map_params_t} (field mask, address, length, flags, prot, memory type,
     * the exported handle's address), the exported handle's length, then the handle.
     */
    private static byte[] docaMemMap(long context) {
        byte[] handle = new byte[16];
        Arrays.fill(handle, (byte) 0x3c);
        return ByteBuffer.allocate(72 + handle.length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(SandboxCommand.MEM_MAP)
                .putLong(context)
                .putLong(0x47L)
                .putLong(0x7f12_3456_0000L)
                .putLong(4096)
                .putInt(0)
                .putInt(3)
                .putInt(0)
                .putInt(0)
                .putLong(0x7f12_3457_0000L)
                .putLong(handle.length)
                .put(handle)
                .array();
    }

    private static WorkerNotification answer(long context, UromStatus status, SandboxNotification payload) {
        return new WorkerNotification(0, 5, context, status, payload.encode());
    }

    private static WorkerNotification refusal(long context, UromStatus status) {
        return new WorkerNotification(0, 5, context, status, new byte[0]);
    }

    private List<String> shrinkAndForeignRun(Path plugin) throws IOException {
        List<String> lines = new ArrayList<>();
        try (ShmScratch shm = new ShmScratch();
                SandboxChildProcess child =
                        SandboxChildProcess.start(plugin, Map.of(FileOwners.VARIABLE, "12345"), dir)) {
            Path region = shm.file(new byte[1 << 20]);
            lines.add(child.call(new MemMap(1, 1 << 20, bytes(region))).line());
            if (OwnerFixtures.runningAsRoot()) {
                Path foreign = OwnerFixtures.chown(shm.file(new byte[4096]), OwnerFixtures.NOBODY);
                lines.add(child.call(new MemMap(2, 4096, bytes(foreign))).line());
            }
            try (FileChannel channel = FileChannel.open(region, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }
            lines.add(child.call(tagSend(3).tag(0x61).count(4096).region(1).build())
                    .line());
            child.submit(
                    tagRecv(4).tag(0x62, -1).count(64).buffer(100).region(1).build());
            lines.add(
                    child.call(tagSend(5).tag(0x62).inline(new byte[] {1, 2, 3}).build())
                            .line());
            lines.add(child.await(4).line());
            child.submit(tagRecv(6).tag(0x63, -1).count(64).build());
            lines.add(child.call(tagSend(7).tag(0x63).inline(new byte[] {4, 5}).build())
                    .line());
            lines.add(child.await(6).line());
            assertThat(child.finish())
                    .as("exit status of the child with %s", plugin.getFileName())
                    .isZero();
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
                new MemMap(
                        22,
                        256,
                        bytes(ShmScratch.link(sub.resolve("hop"), outside).resolve("target"))));
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
        commands.add(
                new MemMap(6, 16, ("/dev/shm/urom-missing-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8)));
        commands.add(new MemMap(7, 128, shmPath));
        commands.add(tagSend(8).to(5).tag(1).inline(new byte[] {1}).build());
        commands.add(tagSend(9).tag(1).count(8).region(3).build());
        commands.add(tagSend(10).tag(1).buffer(250).count(8).region(1).build());
        commands.add(tagRecv(11).tag(1, -1).count(300).region(1).build());
        commands.add(tagRecv(12).tag(0x1234, MASK).count(8).build());
        commands.add(tagSend(13).tag(0xFF_1234L).inline(new byte[] {9, 8, 7}).build());
        commands.add(tagSend(14)
                .tag(0x42)
                .inline(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9})
                .build());
        commands.add(tagRecv(15).tag(0x42, -1).count(4).build());
        commands.add(tagSend(16).tag(0x43).inline(new byte[] {4, 3, 2, 1}).build());
        commands.add(tagRecv(17).tag(0x43, -1).count(64).buffer(16).region(2).build());
        commands.add(tagSend(18).tag(0x44).buffer(16).count(4).region(2).build());
        commands.add(tagRecv(19).tag(0x44, -1).count(4).buffer(100).region(1).build());
        commands.add(new Bounce(20, 5, 8, 0x45, 10, SandboxCommand.BOUNCE_INITIATOR));
        commands.add(new Bounce(21, 0, 65537, 0x45, 10, SandboxCommand.BOUNCE_INITIATOR));
        commands.add(new Bounce(22, 0, 8, 0x45, 0, SandboxCommand.BOUNCE_RESPONDER));
        commands.add(new Bounce(23, 0, 8, 0x45, 10, 2));
        return commands;
    }

    /** Runs {@code commands} one by one on a host alone in its domain; one line per answer, packed bytes included. */
    private static List<String> runAlone(PluginTestKit.Builder plugin, List<SandboxCommand> commands) {
        return answersAlone(
                        plugin,
                        commands.stream()
                                .map(c -> new Sent(c.context(), c.encode()))
                                .toList())
                .stream()
                .map(Answer::line)
                .toList();
    }

    /** A command's bytes, as a host sends them, and the context it is submitted with. */
    private record Sent(long context, byte[] bytes) {}

    /** An answer: the worker's notification and the bytes the plugin packs it into. */
    private record Answer(WorkerNotification notification, byte[] packed) {
        String line() {
            return "context=" + notification.uromContext() + " status=" + notification.status() + " packed="
                    + HexFormat.of().formatHex(packed);
        }
    }

    /** Runs {@code commands} one by one on a worker alone in its domain; the answers by context, one each. */
    private static List<Answer> answersAlone(PluginTestKit.Builder plugin, List<Sent> commands) {
        try (TestWorker worker = plugin.open()) {
            for (Sent command : commands) {
                worker.send(command.context(), command.bytes());
            }
            List<WorkerNotification> answers = new ArrayList<>(worker.awaitNotifications(commands.size()));
            worker.assertNoNotificationAfter(10);
            answers.sort(Comparator.comparingLong(WorkerNotification::uromContext));
            return answers.stream().map(n -> new Answer(n, worker.pack(n))).toList();
        }
    }

    private static Path so() {
        return NativeFixtures.builtFile("urom.sandbox.so");
    }

    private static Path jar() {
        return NativeFixtures.builtFile("urom.sandbox.jar");
    }
}
