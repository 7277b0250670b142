// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxNativeCodec.memMap;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.memhId;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.received;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.sendStatus;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagRecv;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendInline;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendRegion;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.sandbox.SandboxChildProcess.Answer;
import dev.urom.plugins.sandbox.SandboxNativeCodec.Received;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both sandbox plugins, each in a child JVM of its own ({@link SandboxChildProcess}), so that a
 * plugin that crashes its process fails the test instead of ending the test JVM, and so that each
 * gets the {@code UROM_OWNER_UID} it reads when it opens: a mapped file that shrinks, the owner of
 * a mapped file, a malformed {@code UROM_OWNER_UID}. Commands and answers are the bytes of
 * docs/sandbox-protocol.md ({@link SandboxNativeCodec}).
 */
class SandboxChildIT {
    private static final long MASK = 0xffff;
    private static final int REGION = 1 << 20;

    @TempDir
    Path dir;

    private final ShmScratch shm = new ShmScratch();

    @AfterEach
    void removeShmFiles() throws IOException {
        shm.close();
    }

    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void aMappedFileThatShrinksFailsTheCopiesAndThePluginKeepsServing(SandboxPluginFile plugin) throws IOException {
        Path file = shm.file(new byte[REGION]);
        try (SandboxChildProcess child = start(plugin, Map.of())) {
            long memh = memhId(child.call(1, memMap(1, REGION, file.toString())).notification(), 1);
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
                channel.truncate(0);
            }

            Answer send = child.call(2, tagSendRegion(2, 0, 4096, 65536, 0x51, memh));
            assertThat(send.status()).as("TAG_SEND from the shrunk region").isEqualTo(UromStatus.IO_FAILED);
            assertThat(send.payload()).as("a refused command has no payload").isEmpty();

            child.submit(3, tagRecv(3, 8192, 4096, 0x52, MASK, memh));
            assertThat(sendStatus(
                            child.call(4, tagSendInline(4, 0, 0x52, new byte[100]))
                                    .notification(),
                            4))
                    .isEqualTo(UromStatus.SUCCESS);
            Received intoRegion = received(child.await(3).notification());
            assertThat(intoRegion.status())
                    .as("TAG_RECV into the shrunk region")
                    .isEqualTo(UromStatus.IO_FAILED);
            assertThat(new long[] {intoRegion.context(), intoRegion.buffer(), intoRegion.count(), intoRegion.senderTag()
                    })
                    .as("context, buffer, count, sender_tag")
                    .containsExactly(3, 8192, 0, 0x52);
            assertThat(intoRegion.data()).isEmpty();
            assertThat(Files.size(file))
                    .as("the failed receive wrote nothing into the file")
                    .isZero();

            byte[] still = "still serving".getBytes(StandardCharsets.US_ASCII);
            child.submit(5, tagRecv(5, 0, 64, 0x53, MASK, 0));
            assertThat(sendStatus(
                            child.call(6, tagSendInline(6, 0, 0x53, still)).notification(), 6))
                    .isEqualTo(UromStatus.SUCCESS);
            Received inline = received(child.await(5).notification());
            assertThat(inline.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(inline.data()).isEqualTo(still);
            assertThat(child.finish()).as("the child's exit status").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void aFileOfTheWorkersOwnUserIsMappedWhateverUromOwnerUidSays(SandboxPluginFile plugin) {
        Path file = shm.file(new byte[4096]);
        long me = OwnerFixtures.uidOf(file);
        for (long owner : new long[] {me, me == OwnerFixtures.NOBODY ? 1 : OwnerFixtures.NOBODY}) {
            try (SandboxChildProcess child = start(plugin, Map.of(FileOwners.VARIABLE, Long.toString(owner)))) {
                assertThat(memhId(
                                child.call(1, memMap(1, 4096, file.toString())).notification(), 1))
                        .as("memh_id with UROM_OWNER_UID=%d", owner)
                        .isEqualTo(1);
            }
        }
    }

    /**
     * Root only: no one else can make a file of another user. The same rule is checked as any user
     * on a file the test's user does not own, for the C plugin by {@code SandboxFilesNativeIT} and
     * for the Java plugin by {@code FileOwnersTest}.
     */
    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    @EnabledIf("dev.urom.plugins.sandbox.OwnerFixtures#runningAsRoot")
    void aFileOfAnotherUserIsMappedOnlyWhenUromOwnerUidIsThatUser(SandboxPluginFile plugin) {
        Path file = OwnerFixtures.chown(shm.file(new byte[4096]), OwnerFixtures.NOBODY);
        Map<String, UromStatus> expected = new LinkedHashMap<>();
        Map<String, UromStatus> actual = new LinkedHashMap<>();
        for (String owner : new String[] {null, "12345", Long.toString(OwnerFixtures.NOBODY)}) {
            Map<String, String> environment = owner == null ? Map.of() : Map.of(FileOwners.VARIABLE, owner);
            try (SandboxChildProcess child = start(plugin, environment)) {
                expected.put(
                        "UROM_OWNER_UID=" + owner,
                        Long.toString(OwnerFixtures.NOBODY).equals(owner)
                                ? UromStatus.SUCCESS
                                : UromStatus.NOT_PERMITTED);
                actual.put(
                        "UROM_OWNER_UID=" + owner,
                        child.call(1, memMap(1, 4096, file.toString())).status());
            }
        }
        assertThat(actual).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0} UROM_OWNER_UID=''{1}''")
    @MethodSource("malformedUromOwnerUids")
    void aMalformedUromOwnerUidKeepsThePluginFromOpening(SandboxPluginFile plugin, String value) {
        try (SandboxChildProcess child = start(plugin, Map.of(FileOwners.VARIABLE, value))) {
            assertThat(child.openResult()).isEqualTo("open-failed BAD_CONFIG");
        }
    }

    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void theLargestUidOpens(SandboxPluginFile plugin) {
        try (SandboxChildProcess child =
                start(plugin, Map.of(FileOwners.VARIABLE, Long.toString(FileOwners.MAX_UID)))) {
            assertThat(child.openResult()).isEqualTo("opened");
        }
    }

    static Stream<Arguments> malformedUromOwnerUids() {
        return Stream.of(SandboxPluginFile.values())
                .flatMap(plugin -> Stream.of("", "abc", "4294967295").map(value -> Arguments.of(plugin, value)));
    }

    private SandboxChildProcess start(SandboxPluginFile plugin, Map<String, String> environment) {
        return SandboxChildProcess.start(plugin.file(), environment, dir);
    }
}
