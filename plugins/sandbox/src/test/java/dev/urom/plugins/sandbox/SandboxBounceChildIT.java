// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static dev.urom.plugins.sandbox.SandboxNativeCodec.INITIATOR;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.RESPONDER;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.bounce;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.bounced;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.received;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.sendStatus;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagRecv;
import static dev.urom.plugins.sandbox.SandboxNativeCodec.tagSendInline;
import static dev.urom.plugins.sandbox.SandboxPluginFile.JAVA;
import static dev.urom.plugins.sandbox.SandboxPluginFile.NATIVE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.plugins.sandbox.SandboxChildProcess.Answer;
import dev.urom.plugins.sandbox.SandboxNativeCodec.Bounced;
import dev.urom.plugins.sandbox.SandboxNativeCodec.Received;
import dev.urom.spi.UromStatus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * BOUNCE between worker processes ({@link SandboxChildProcess}, domain id 1 the other child): tag
 * round trips run inside the plugins, each side answering once with its count. Every case runs for
 * both plugins ({@link SandboxPluginFile}); the round trips also run between a C and a Java worker,
 * each way.
 */
class SandboxBounceChildIT {
    private static final long MASK = -1L;
    private static final long PEER = 1;
    /** The bound of a run in the children that test it, instead of the default 30 s. */
    private static final long SHORT_BOUND_MS = 300;

    @TempDir
    Path dir;

    private SandboxChildProcess start(SandboxPluginFile plugin, Map<String, String> environment) {
        SandboxChildProcess child = SandboxChildProcess.start(plugin.file(), environment, dir);
        assertThat(child.openResult()).isEqualTo("opened");
        return child;
    }

    private static void introduce(SandboxChildProcess a, SandboxChildProcess b) {
        a.peer(PEER, b.address());
        b.peer(PEER, a.address());
    }

    private static Map<String, String> shortBound() {
        return Map.of("UROM_SANDBOX_BOUNCE_TIMEOUT_MS", Long.toString(SHORT_BOUND_MS));
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** The status of a command the plugin refused: no payload, the worker's answer. */
    private static UromStatus refusal(Answer answer) {
        assertThat(answer.payload())
                .as("a refused command has no notification payload")
                .isEmpty();
        return answer.status();
    }

    /**
     * Shared memory (UCX's defaults) and TCP; an empty message, a short one and the largest: each
     * plugin with itself, and a C initiator with a Java responder and the other way round.
     */
    @ParameterizedTest(name = "initiator {0}, responder {1}, UCX_TLS={2}, {3} bytes")
    @MethodSource("bouncePairs")
    void twoWorkerProcessesBounceNTimesAndBothReportN(
            SandboxPluginFile initiatorPlugin, SandboxPluginFile responderPlugin, String tls, int count) {
        Map<String, String> environment = tls.isEmpty() ? Map.of() : Map.of("UCX_TLS", tls);
        int iterations = 200;
        try (SandboxChildProcess a = start(initiatorPlugin, environment);
                SandboxChildProcess b = start(responderPlugin, environment)) {
            introduce(a, b);
            b.submit(1, bounce(1, PEER, count, 0x70, iterations, RESPONDER));
            a.submit(2, bounce(2, PEER, count, 0x70, iterations, INITIATOR));
            Bounced initiator = bounced(a.await(2).notification(), 2);
            Bounced responder = bounced(b.await(1).notification(), 1);
            assertThat(initiator)
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.SUCCESS, (long) iterations);
            assertThat(responder)
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.SUCCESS, (long) iterations);
            assertThat(initiator.elapsedNs()).isPositive();
            assertThat(responder.elapsedNs()).isPositive();
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    static Stream<Arguments> bouncePairs() {
        List<Arguments> pairs = new ArrayList<>();
        for (SandboxPluginFile plugin : SandboxPluginFile.values()) {
            for (Object[] setting : new Object[][] {{"", 8}, {"", 0}, {"", 65536}, {"tcp", 8}, {"tcp", 65536}}) {
                pairs.add(Arguments.of(plugin, plugin, setting[0], setting[1]));
            }
        }
        for (SandboxPluginFile[] mixed : new SandboxPluginFile[][] {{NATIVE, JAVA}, {JAVA, NATIVE}}) {
            for (Object[] setting : new Object[][] {{"", 8}, {"", 65536}, {"tcp", 8}}) {
                pairs.add(Arguments.of(mixed[0], mixed[1], setting[0], setting[1]));
            }
        }
        return pairs.stream();
    }

    /**
     * A BOUNCE receives only its own tag: a message of another tag queued before it, and a TAG_RECV
     * of another tag posted before it, are there for TAG_RECV afterwards; and a second BOUNCE on the
     * same endpoints works.
     */
    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void aBounceTakesNoMessageOfAnotherTag(SandboxPluginFile plugin) {
        try (SandboxChildProcess a = start(plugin, Map.of());
                SandboxChildProcess b = start(plugin, Map.of())) {
            introduce(a, b);
            b.submit(1, tagRecv(1, 0, 64, 0x51, MASK, 0));
            assertThat(sendStatus(
                            a.call(2, tagSendInline(2, PEER, 0x52, ascii("queued")))
                                    .notification(),
                            2))
                    .isEqualTo(UromStatus.SUCCESS);
            for (long round = 0; round < 2; round++) {
                b.submit(10 + round, bounce(10 + round, PEER, 8, 0x50, 50, RESPONDER));
                a.submit(20 + round, bounce(20 + round, PEER, 8, 0x50, 50, INITIATOR));
                assertThat(bounced(a.await(20 + round).notification(), 20 + round))
                        .as("initiator, run %d", round)
                        .extracting(Bounced::status, Bounced::iterations)
                        .containsExactly(UromStatus.SUCCESS, 50L);
                assertThat(bounced(b.await(10 + round).notification(), 10 + round))
                        .as("responder, run %d", round)
                        .extracting(Bounced::status, Bounced::iterations)
                        .containsExactly(UromStatus.SUCCESS, 50L);
            }
            assertThat(sendStatus(
                            a.call(3, tagSendInline(3, PEER, 0x51, ascii("posted")))
                                    .notification(),
                            3))
                    .isEqualTo(UromStatus.SUCCESS);
            Received posted = received(b.await(1).notification());
            assertThat(posted.data()).isEqualTo(ascii("posted"));
            assertThat(posted.senderTag()).isEqualTo(0x51);
            Received queued =
                    received(b.call(4, tagRecv(4, 0, 64, 0x52, MASK, 0)).notification());
            assertThat(queued.data()).isEqualTo(ascii("queued"));
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void bounceLengthsOtherThan56BytesAreInvalid(SandboxPluginFile plugin) {
        try (SandboxChildProcess a = start(plugin, Map.of());
                SandboxChildProcess b = start(plugin, Map.of())) {
            introduce(a, b);
            byte[] valid = bounce(1, PEER, 8, 0x50, 1, INITIATOR);
            long context = 1;
            for (int length : new int[] {16, 48, 55, 57, 64, 120}) {
                context++;
                assertThat(refusal(a.call(context, Arrays.copyOf(valid, length))))
                        .as("a BOUNCE of %d bytes", length)
                        .isEqualTo(UromStatus.INVALID_VALUE);
            }
            assertThat(a.finish()).isZero();
        }
    }

    /**
     * count above 65536, iterations 0 or above 10^6, a role other than 0 and 1; the plugin serves on
     * (a valid BOUNCE after them runs).
     */
    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void bounceValuesOutOfRangeAreInvalid(SandboxPluginFile plugin) {
        long[][] invalid = {{65537, 1, 0}, {-1, 1, 0}, {8, 0, 0}, {8, 1000001, 1}, {8, -1, 0}, {8, 1, 2}, {8, 1, -1}};
        try (SandboxChildProcess a = start(plugin, Map.of());
                SandboxChildProcess b = start(plugin, Map.of())) {
            introduce(a, b);
            long context = 0;
            for (long[] values : invalid) {
                context++;
                assertThat(refusal(a.call(context, bounce(context, PEER, values[0], 0x50, values[1], values[2]))))
                        .as("count %d, iterations %d, role %d", values[0], values[1], values[2])
                        .isEqualTo(UromStatus.INVALID_VALUE);
            }
            b.submit(100, bounce(100, PEER, 8, 0x50, 10, RESPONDER));
            a.submit(101, bounce(101, PEER, 8, 0x50, 10, INITIATOR));
            assertThat(bounced(a.await(101).notification(), 101))
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.SUCCESS, 10L);
            assertThat(bounced(b.await(100).notification(), 100))
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.SUCCESS, 10L);
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void aBounceWithAnUnknownPeerIsNotFound(SandboxPluginFile plugin) {
        try (SandboxChildProcess a = start(plugin, Map.of())) {
            assertThat(refusal(a.call(1, bounce(1, 7, 8, 0x50, 10, INITIATOR)))).isEqualTo(UromStatus.NOT_FOUND);
            assertThat(refusal(a.call(2, bounce(2, 7, 8, 0x50, 10, RESPONDER)))).isEqualTo(UromStatus.NOT_FOUND);
            assertThat(a.finish()).isZero();
        }
    }

    /**
     * A responder whose initiator never sends ends at its bound with TIME_OUT and 0 done (the largest
     * count and iterations are accepted); one whose initiator stops after 3 of its 5 rounds reports
     * 3 done, the initiator SUCCESS with 3.
     */
    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void aResponderWithoutItsInitiatorTimesOutAtItsBound(SandboxPluginFile plugin) {
        try (SandboxChildProcess a = start(plugin, shortBound());
                SandboxChildProcess b = start(plugin, shortBound())) {
            introduce(a, b);
            b.submit(1, bounce(1, PEER, 65536, 0x60, 1_000_000, RESPONDER));
            Bounced alone = bounced(b.await(1).notification(), 1);
            assertThat(alone.status()).isEqualTo(UromStatus.TIME_OUT);
            assertThat(alone.iterations()).isZero();
            assertThat(alone.elapsedNs()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(SHORT_BOUND_MS));

            b.submit(2, bounce(2, PEER, 8, 0x61, 5, RESPONDER));
            a.submit(3, bounce(3, PEER, 8, 0x61, 3, INITIATOR));
            assertThat(bounced(a.await(3).notification(), 3))
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.SUCCESS, 3L);
            assertThat(bounced(b.await(2).notification(), 2))
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.TIME_OUT, 3L);
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    /** A message of the bounce's tag longer than its count ends it with TOO_BIG; the plugin serves on. */
    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void aLongerMessageWithTheBounceTagEndsItTooBig(SandboxPluginFile plugin) {
        try (SandboxChildProcess a = start(plugin, Map.of());
                SandboxChildProcess b = start(plugin, Map.of())) {
            introduce(a, b);
            assertThat(sendStatus(
                            a.call(1, tagSendInline(1, PEER, 0x62, new byte[16]))
                                    .notification(),
                            1))
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(bounced(b.call(2, bounce(2, PEER, 8, 0x62, 4, RESPONDER)).notification(), 2))
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.TOO_BIG, 0L);
            b.submit(3, tagRecv(3, 0, 64, 0x63, MASK, 0));
            assertThat(sendStatus(
                            a.call(4, tagSendInline(4, PEER, 0x63, ascii("after")))
                                    .notification(),
                            4))
                    .isEqualTo(UromStatus.SUCCESS);
            assertThat(received(b.await(3).notification()).data()).isEqualTo(ascii("after"));
            assertThat(a.finish()).isZero();
            assertThat(b.finish()).isZero();
        }
    }

    /**
     * An initiator whose peer dies during its run ends with CONNECTION_RESET once UCX notices (its
     * keep-alive, made short here), with the rounds done before, not at its bound.
     */
    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void anInitiatorWhosePeerDiesDuringTheRunEndsWithConnectionReset(SandboxPluginFile plugin) {
        Map<String, String> environment = Map.of("UCX_KEEPALIVE_INTERVAL", "100ms");
        try (SandboxChildProcess a = start(plugin, environment)) {
            try (SandboxChildProcess b = start(plugin, environment)) {
                introduce(a, b);
                b.submit(1, bounce(1, PEER, 8, 0x64, 1, RESPONDER));
                a.submit(2, bounce(2, PEER, 8, 0x64, 1_000_000, INITIATOR));
                // The responder's one round is the initiator's first: the initiator is in its run now.
                assertThat(bounced(b.await(1).notification(), 1))
                        .extracting(Bounced::status, Bounced::iterations)
                        .containsExactly(UromStatus.SUCCESS, 1L);
                b.kill();
            }
            Bounced ended = bounced(a.await(2).notification(), 2);
            assertThat(ended)
                    .extracting(Bounced::status, Bounced::iterations)
                    .containsExactly(UromStatus.CONNECTION_RESET, 1L);
            assertThat(ended.elapsedNs()).isLessThan(TimeUnit.SECONDS.toNanos(30));
            assertThat(a.finish()).isZero();
        }
    }

    /** The bound is read when the plugin opens: anything but 1 to 3600000 ms keeps it closed. */
    @ParameterizedTest(name = "{0} UROM_SANDBOX_BOUNCE_TIMEOUT_MS=''{1}''")
    @MethodSource("badBounceBounds")
    void aBadBounceBoundKeepsThePluginFromOpening(SandboxPluginFile plugin, String value) {
        try (SandboxChildProcess child =
                SandboxChildProcess.start(plugin.file(), Map.of("UROM_SANDBOX_BOUNCE_TIMEOUT_MS", value), dir)) {
            assertThat(child.openResult()).isEqualTo("open-failed BAD_CONFIG");
        }
    }

    static Stream<Arguments> badBounceBounds() {
        return Stream.of(SandboxPluginFile.values())
                .flatMap(plugin -> Stream.of("", "0", "-5", "12ms", "3600001", "99999999999999999999")
                        .map(value -> Arguments.of(plugin, value)));
    }

    @ParameterizedTest
    @EnumSource(SandboxPluginFile.class)
    void theLargestBoundIsAccepted(SandboxPluginFile plugin) {
        try (SandboxChildProcess child = start(plugin, Map.of("UROM_SANDBOX_BOUNCE_TIMEOUT_MS", "3600000"))) {
            assertThat(child.finish()).isZero();
        }
    }
}
