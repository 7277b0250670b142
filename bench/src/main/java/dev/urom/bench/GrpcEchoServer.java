// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.ServerCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The server of the gRPC peer baseline, run in its own JVM by {@link GrpcEchoBaseline}:
 * {@code GrpcEchoServer SOCKET REPLY_BYTES}. Answers every {@link GrpcEcho#METHOD} call with
 * REPLY_BYTES bytes, on the event-loop thread (direct executor). Prints {@code READY} on stdout once
 * it listens; ends, removing SOCKET, when its stdin reaches end of file (its parent closed it or
 * died).
 *
 * <p>Errors: one line on stderr, exit status 1; usage errors exit 2.
 */
public final class GrpcEchoServer {
    /** gRPC's default limit on one message. */
    private static final int MAX_REPLY_BYTES = 4 << 20;

    private GrpcEchoServer() {}

    public static void main(String[] args) throws InterruptedException {
        Path socket;
        int replyBytes;
        try {
            BenchCommand.Parsed line = new BenchCommand("GrpcEchoServer", "usage: GrpcEchoServer SOCKET REPLY_BYTES")
                    .parameter("SOCKET", Path::of)
                    .parameter("REPLY_BYTES", value -> BenchCommand.count("REPLY_BYTES", value, 0, MAX_REPLY_BYTES))
                    .parse(List.of(args));
            socket = line.parameter(0);
            replyBytes = line.parameter(1);
        } catch (IllegalArgumentException e) {
            System.err.println("GrpcEchoServer: " + e.getMessage());
            System.exit(2);
            return;
        }
        byte[] reply = new byte[replyBytes];
        ServerServiceDefinition echo = ServerServiceDefinition.builder(GrpcEcho.SERVICE)
                .addMethod(GrpcEcho.METHOD, ServerCalls.asyncUnaryCall((request, responses) -> {
                    responses.onNext(reply);
                    responses.onCompleted();
                }))
                .build();
        EpollEventLoopGroup boss = new EpollEventLoopGroup(1);
        EpollEventLoopGroup workers = new EpollEventLoopGroup(1);
        Server server;
        try {
            server = NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                    .channelType(EpollServerDomainSocketChannel.class)
                    .bossEventLoopGroup(boss)
                    .workerEventLoopGroup(workers)
                    .directExecutor()
                    .addService(echo)
                    .build()
                    .start();
        } catch (IOException e) {
            System.err.println("GrpcEchoServer: cannot listen on " + socket + ": " + e.getMessage());
            System.exit(1);
            return;
        }
        System.out.println("READY");
        System.out.flush();
        try {
            while (System.in.read() >= 0) {
                // wait for end of file
            }
        } catch (IOException e) {
            // stdin is gone: same as end of file
        }
        server.shutdownNow().awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
        boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            System.err.println("GrpcEchoServer: cannot remove " + socket + ": " + e.getMessage());
        }
        System.exit(0);
    }
}
