// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The peer: gRPC-java unary calls over a Unix-domain socket (Netty epoll), the server
 * ({@link GrpcEchoServer}) in a JVM of its own started as a child process, the client in this one.
 * Both ends run calls on their event-loop thread (direct executor), gRPC's fastest set-up.
 *
 * <p>Not thread-safe. Failures throw {@link IllegalStateException} with one line.
 */
final class GrpcEchoBaseline {
    private static final long CALL_TIMEOUT_S = 60;

    /**
     * What the peer measured.
     *
     * @param roundTripCpu the CPU time of this JVM (the client, every thread) and of the server's over
     *     the measured calls with one in flight
     * @param throughputCpu the same over the measured calls with several in flight
     * @param roundTripCurve the distribution of the measured calls with one in flight, for a chart
     */
    record Result(
            long p50Ns,
            long p99Ns,
            double opsPerSecond,
            CpuCost roundTripCpu,
            CpuCost throughputCpu,
            LatencyCurve roundTripCurve) {}

    private final ChildProcesses children;

    GrpcEchoBaseline(ChildProcesses children) {
        this.children = children;
    }

    /**
     * Measures {@code rounds} calls with one in flight and then {@code throughputRounds} calls with
     * {@code inFlight} in flight, each after as many unmeasured ones to warm up.
     */
    Result run(Path socket, int requestBytes, int replyBytes, int rounds, int throughputRounds, int inFlight)
            throws IOException, InterruptedException {
        Process server = children.start(new ProcessBuilder(
                        JavaCommand.java(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        GrpcEchoServer.class.getName(),
                        socket.toString(),
                        Integer.toString(replyBytes))
                .redirectError(ProcessBuilder.Redirect.INHERIT));
        EpollEventLoopGroup loop = null;
        ManagedChannel channel = null;
        try {
            String ready = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.US_ASCII))
                    .readLine();
            if (!"READY".equals(ready)) {
                throw new IllegalStateException(
                        "gRPC echo server did not start: it said " + (ready == null ? "nothing" : "'" + ready + "'"));
            }
            loop = new EpollEventLoopGroup(1);
            channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .channelType(EpollDomainSocketChannel.class)
                    .eventLoopGroup(loop)
                    .usePlaintext()
                    .directExecutor()
                    .build();
            byte[] request = new byte[requestBytes];
            Map<String, Long> path = new LinkedHashMap<>();
            path.put("client", ProcessHandle.current().pid());
            path.put("server", server.pid());
            roundTrips(channel, request, rounds);
            CpuCost.Snapshot roundTripsBegin = CpuCost.snapshot(path);
            LatencySummary latency = LatencySummary.of(roundTrips(channel, request, rounds));
            CpuCost roundTripCpu = CpuCost.between(roundTripsBegin, CpuCost.snapshot(path), rounds);
            pipelined(channel, request, throughputRounds, inFlight);
            CpuCost.Snapshot pipelinedBegin = CpuCost.snapshot(path);
            double opsPerSecond = pipelined(channel, request, throughputRounds, inFlight);
            CpuCost throughputCpu = CpuCost.between(pipelinedBegin, CpuCost.snapshot(path), throughputRounds);
            return new Result(
                    latency.p50Ns(), latency.p99Ns(), opsPerSecond, roundTripCpu, throughputCpu, latency.curve());
        } finally {
            if (channel != null) {
                channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
            if (loop != null) {
                loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
            }
            server.getOutputStream().close();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static long[] roundTrips(ManagedChannel channel, byte[] request, int rounds) {
        long[] samples = new long[rounds];
        for (int i = 0; i < rounds; i++) {
            long start = System.nanoTime();
            ClientCalls.blockingUnaryCall(channel, GrpcEcho.METHOD, CallOptions.DEFAULT, request);
            samples[i] = System.nanoTime() - start;
        }
        return samples;
    }

    /** Calls per second over {@code total} calls, each completion starting the next. */
    private static double pipelined(ManagedChannel channel, byte[] request, int total, int inFlight)
            throws InterruptedException {
        CountDownLatch done = new CountDownLatch(total);
        AtomicInteger issued = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        StreamObserver<byte[]> observer = new StreamObserver<>() {
            @Override
            public void onNext(byte[] reply) {}

            @Override
            public void onError(Throwable error) {
                failure.compareAndSet(null, error);
                while (done.getCount() > 0) {
                    done.countDown();
                }
            }

            @Override
            public void onCompleted() {
                done.countDown();
                if (issued.getAndIncrement() < total) {
                    ClientCalls.asyncUnaryCall(channel.newCall(GrpcEcho.METHOD, CallOptions.DEFAULT), request, this);
                }
            }
        };
        long start = System.nanoTime();
        for (int i = 0; i < Math.min(inFlight, total); i++) {
            if (issued.getAndIncrement() < total) {
                ClientCalls.asyncUnaryCall(channel.newCall(GrpcEcho.METHOD, CallOptions.DEFAULT), request, observer);
            }
        }
        if (!done.await(CALL_TIMEOUT_S, TimeUnit.SECONDS)) {
            throw new IllegalStateException("gRPC echo: " + done.getCount() + " of " + total
                    + " calls unanswered after " + CALL_TIMEOUT_S + " s");
        }
        long elapsed = System.nanoTime() - start;
        if (failure.get() != null) {
            throw new IllegalStateException(
                    "gRPC echo call failed: " + failure.get().getMessage());
        }
        return total / (elapsed / 1e9);
    }
}
