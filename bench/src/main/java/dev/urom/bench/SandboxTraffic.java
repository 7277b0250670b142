// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.host.Worker;
import dev.urom.plugins.sandbox.host.SandboxClient;
import dev.urom.plugins.sandbox.host.SandboxClient.BounceRole;
import dev.urom.plugins.sandbox.host.SandboxClient.Bounced;
import dev.urom.plugins.sandbox.host.SandboxClient.Received;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

/**
 * Sandbox traffic between two workers of one domain, {@code sender} (domain id 0) and {@code
 * receiver} (domain id 1), both served by plugin {@code pluginId}, driven by this host through
 * {@link SandboxClient}.
 *
 * <p>Not thread-safe: one measurement at a time. Failures (a status other than SUCCESS, a wrong
 * count or wrong bytes, no answer within {@value #TIMEOUT_S} s) throw {@link IllegalStateException}
 * with one line naming the operation.
 */
final class SandboxTraffic {
    static final long SENDER_DOMAIN_ID = 0;
    static final long RECEIVER_DOMAIN_ID = 1;
    private static final long TIMEOUT_S = 60;
    private static final long ALL_BITS = -1L;
    private static final long TAG_THERE = 1;
    private static final long TAG_BACK = 2;
    private static final long TAG_INLINE = 3;
    private static final long TAG_REGION = 4;
    private static final long TAG_BOUNCE = 5;

    private final Worker sender;
    private final Worker receiver;
    private final long pluginId;
    private final AtomicLong contexts = new AtomicLong();

    SandboxTraffic(Worker sender, Worker receiver, long pluginId) {
        this.sender = sender;
        this.receiver = receiver;
        this.pluginId = pluginId;
    }

    /**
     * {@code rounds} round trips of {@code bytes} inline bytes, sender → receiver → sender, after
     * as many unmeasured. Both receives of a round are posted before its clock starts; the clock
     * runs from the first TAG_SEND to the host seeing the second message received.
     */
    LatencySummary roundTrips(int bytes, int rounds) throws InterruptedException {
        for (int i = 0; i < rounds; i++) {
            roundTrip(bytes, i);
        }
        long[] samples = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            samples[i] = roundTrip(bytes, i);
        }
        return LatencySummary.of(samples);
    }

    private long roundTrip(int bytes, int round) throws InterruptedException {
        byte[] ping = numbered(bytes, round);
        CompletableFuture<Received> there =
                SandboxClient.tagRecv(receiver, pluginId, context(), TAG_THERE, ALL_BITS, bytes);
        CompletableFuture<Received> back =
                SandboxClient.tagRecv(sender, pluginId, context(), TAG_BACK, ALL_BITS, bytes);
        long start = System.nanoTime();
        CompletableFuture<Void> sent =
                SandboxClient.tagSend(sender, pluginId, context(), RECEIVER_DOMAIN_ID, TAG_THERE, ping);
        byte[] arrived = await(there, "TAG_RECV of the ping").data();
        CompletableFuture<Void> answered =
                SandboxClient.tagSend(receiver, pluginId, context(), SENDER_DOMAIN_ID, TAG_BACK, arrived);
        byte[] returned = await(back, "TAG_RECV of the pong").data();
        long took = System.nanoTime() - start;
        await(sent, "TAG_SEND of the ping");
        await(answered, "TAG_SEND of the pong");
        if (!Arrays.equals(returned, ping)) {
            throw new IllegalStateException("round trip " + round + " came back with other bytes than it left with");
        }
        return took;
    }

    /**
     * The mean worker-to-worker round trip in ns of one BOUNCE of {@code iterations} rounds of
     * {@code bytes}, sender initiating, receiver responding (both submitted together, the responder
     * first), after one of a tenth as many rounds: the initiator's elapsed time over its rounds.
     * Empty when the plugin answers NOT_SUPPORTED. A run that reached the plugin's bound (TIME_OUT
     * on both sides, the initiator with rounds done) is a measurement of the rounds done: the
     * report's {@link Bounced#iterationsDone()} says how many. Any other failure throws.
     */
    Optional<Bounced> bounceRoundTrip(int bytes, int iterations) throws InterruptedException {
        if (bounce(bytes, SandboxBenchOptions.warmUp(iterations)) == null) {
            return Optional.empty();
        }
        return Optional.of(bounce(bytes, iterations));
    }

    /** One BOUNCE on both sides; the initiator's report, or null when the plugin does not support BOUNCE. */
    private Bounced bounce(int bytes, int iterations) throws InterruptedException {
        CompletableFuture<Bounced> responder = SandboxClient.bounce(
                receiver, pluginId, context(), SENDER_DOMAIN_ID, bytes, TAG_BOUNCE, iterations, BounceRole.RESPONDER);
        CompletableFuture<Bounced> initiator = SandboxClient.bounce(
                sender, pluginId, context(), RECEIVER_DOMAIN_ID, bytes, TAG_BOUNCE, iterations, BounceRole.INITIATOR);
        Bounced initiated = awaitBounce(initiator, "initiator");
        Bounced responded = awaitBounce(responder, "responder");
        if (initiated == null || responded == null) {
            if (initiated != null || responded != null) {
                throw new IllegalStateException("BOUNCE is supported by one worker of the plugin and not by the other");
            }
            return null;
        }
        boolean bounded = initiated.status() == UromStatus.TIME_OUT
                && initiated.iterationsDone() > 0
                && responded.status() == UromStatus.TIME_OUT;
        for (Bounced side : List.of(initiated, responded)) {
            if (!bounded && (side.status() != UromStatus.SUCCESS || side.iterationsDone() != iterations)) {
                throw new IllegalStateException("BOUNCE " + (side == initiated ? "initiator" : "responder") + " ended "
                        + side.status() + " after " + side.iterationsDone() + " of " + iterations + " rounds");
            }
        }
        return initiated;
    }

    /** What one side reported; null for NOT_SUPPORTED. */
    private static Bounced awaitBounce(CompletableFuture<Bounced> side, String role) throws InterruptedException {
        try {
            return side.get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UromException u && u.status() == UromStatus.NOT_SUPPORTED) {
                return null;
            }
            throw new IllegalStateException(
                    "BOUNCE " + role + " failed: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException("BOUNCE " + role + " unanswered after " + TIMEOUT_S + " s");
        }
    }

    /**
     * Bytes per second of {@code messages} inline messages of {@code bytes} each, sender →
     * receiver, {@code inFlight} at a time (a receive posted with each send), after a tenth as many
     * unmeasured; every received message is checked for its length and its first 8 bytes.
     */
    double inlineBytesPerSecond(int bytes, int messages, int inFlight) throws InterruptedException {
        IntFunction<CompletableFuture<Void>> send = i ->
                SandboxClient.tagSend(sender, pluginId, context(), RECEIVER_DOMAIN_ID, TAG_INLINE, numbered(bytes, i));
        IntFunction<CompletableFuture<Received>> receive =
                i -> SandboxClient.tagRecv(receiver, pluginId, context(), TAG_INLINE, ALL_BITS, bytes)
                        .thenApply(got -> {
                            if (got.data().length != bytes
                                    || ByteBuffer.wrap(got.data())
                                                    .order(ByteOrder.LITTLE_ENDIAN)
                                                    .getLong()
                                            != i) {
                                throw new IllegalStateException(
                                        "inline message " + i + " arrived as " + got.data().length + " other bytes");
                            }
                            return got;
                        });
        pipelined("inline", SandboxBenchOptions.warmUp(messages), inFlight, send, receive, bytes);
        return pipelined("inline", messages, inFlight, send, receive, bytes);
    }

    /**
     * Bytes per second of {@code messages} messages of {@code bytes} from offset 0 of the sender's
     * region {@code senderMemh} to offset 0 of the receiver's region {@code receiverMemh}, {@code
     * inFlight} at a time, after a tenth as many unmeasured. The caller checks the bytes in the
     * receiver's file.
     */
    double regionBytesPerSecond(long senderMemh, long receiverMemh, int bytes, int messages, int inFlight)
            throws InterruptedException {
        IntFunction<CompletableFuture<Void>> send = i -> SandboxClient.tagSendRegion(
                sender, pluginId, context(), RECEIVER_DOMAIN_ID, TAG_REGION, senderMemh, 0, bytes);
        IntFunction<CompletableFuture<Received>> receive = i -> SandboxClient.tagRecvRegion(
                receiver, pluginId, context(), TAG_REGION, ALL_BITS, receiverMemh, 0, bytes);
        pipelined("region", SandboxBenchOptions.warmUp(messages), inFlight, send, receive, bytes);
        return pipelined("region", messages, inFlight, send, receive, bytes);
    }

    /** One region message sender → receiver, awaited: what the caller then checks byte for byte. */
    void regionOnce(long senderMemh, long receiverMemh, int bytes) throws InterruptedException {
        pipelined(
                "region",
                1,
                1,
                i -> SandboxClient.tagSendRegion(
                        sender, pluginId, context(), RECEIVER_DOMAIN_ID, TAG_REGION, senderMemh, 0, bytes),
                i -> SandboxClient.tagRecvRegion(
                        receiver, pluginId, context(), TAG_REGION, ALL_BITS, receiverMemh, 0, bytes),
                bytes);
    }

    /** Maps {@code length} bytes of {@code path} into {@code worker}; its memh id. */
    long memMap(Worker worker, String path, long length) throws InterruptedException {
        return await(SandboxClient.memMap(worker, pluginId, context(), path, length), "MEM_MAP of " + path);
    }

    Worker sender() {
        return sender;
    }

    Worker receiver() {
        return receiver;
    }

    private double pipelined(
            String what,
            int messages,
            int inFlight,
            IntFunction<CompletableFuture<Void>> send,
            IntFunction<CompletableFuture<Received>> receive,
            int bytes)
            throws InterruptedException {
        Semaphore window = new Semaphore(inFlight);
        CountDownLatch done = new CountDownLatch(messages);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long start = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            if (!window.tryAcquire(TIMEOUT_S, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        what + " message " + i + ": no earlier message completed within " + TIMEOUT_S + " s");
            }
            failIfFailed(what, failure);
            CompletableFuture<Received> received = receive.apply(i);
            CompletableFuture<Void> sent = send.apply(i);
            received.thenCombine(sent, (got, nothing) -> got).whenComplete((got, error) -> {
                if (error == null && got.count() != bytes) {
                    error = new IllegalStateException(
                            "a message of " + bytes + " bytes was received as " + got.count());
                }
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                window.release();
                done.countDown();
            });
        }
        if (!done.await(TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new IllegalStateException(done.getCount() + " of " + messages + " " + what
                    + " messages unanswered after " + TIMEOUT_S + " s");
        }
        long elapsed = System.nanoTime() - start;
        failIfFailed(what, failure);
        return (double) messages * bytes / (elapsed / 1e9);
    }

    private static void failIfFailed(String what, AtomicReference<Throwable> failure) {
        Throwable error = failure.get();
        if (error != null) {
            Throwable cause = error.getCause() != null ? error.getCause() : error;
            throw new IllegalStateException(what + " transfer failed: " + cause.getMessage());
        }
    }

    private long context() {
        return contexts.incrementAndGet();
    }

    private static byte[] numbered(int bytes, long number) {
        ByteBuffer data = ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
        return bytes >= Long.BYTES ? data.putLong(number).array() : data.array();
    }

    private static <T> T await(CompletableFuture<T> future, String what) throws InterruptedException {
        try {
            return future.get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException(what + " failed: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException(what + " unanswered after " + TIMEOUT_S + " s");
        }
    }
}
