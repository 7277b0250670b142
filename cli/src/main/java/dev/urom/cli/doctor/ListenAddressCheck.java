// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import dev.urom.auth.Proofs;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Is the daemon's listen address free, or held by a live daemon? A Unix socket file that nobody
 * answers on is stale; a TCP port that cannot be bound and does not answer the UROM handshake is
 * held by another program. Binds (and releases at once) a TCP port to test it; never removes
 * anything. Each handshake is given {@code timeout} before the answer counts as missing.
 * Stateless.
 */
public final class ListenAddressCheck implements Check {
    static final String NAME = "listen address";

    private final ServiceAddress address;
    private final Duration timeout;

    public ListenAddressCheck(ServiceAddress address, Duration timeout) {
        this.address = address;
        this.timeout = timeout;
    }

    @Override
    public CheckResult run() {
        return address.isUnix() ? checkUnix(address.unixPath()) : checkTcp();
    }

    private CheckResult checkUnix(Path socket) {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return CheckResult.passed(NAME, address + " is free");
        }
        if (!isSocketFile(socket)) {
            return CheckResult.failed(NAME, socket + " exists and is not a socket",
                    "move that file away, or give the daemon another --listen address");
        }
        SocketChannel channel;
        try {
            channel = address.connect();
        } catch (ConnectException refused) {
            return CheckResult.failed(NAME, socket + " is a stale socket file: no process answers on it",
                    "remove it (rm " + socket + "); the daemon also removes a stale socket file when it starts");
        } catch (IOException e) {
            return CheckResult.failed(NAME, "cannot connect to " + address + ": " + e.getMessage(),
                    "check the permissions of " + socket + " and its directory, or give the daemon another --listen address");
        }
        return identify(channel, "give the daemon another --listen address, or stop the program that listens on " + socket);
    }

    private CheckResult checkTcp() {
        try (ServerSocketChannel server = address.bind()) {
            return CheckResult.passed(NAME, address + " is free");
        } catch (BindException inUse) {
            SocketChannel channel;
            try {
                channel = address.connect();
            } catch (IOException e) {
                return CheckResult.failed(NAME, address + " cannot be bound (" + inUse.getMessage() + ") and does not answer (" + e.getMessage() + ")",
                        "give the daemon another --listen address");
            }
            return identify(channel, "stop the program that holds port " + address.port() + " (ss -ltnp shows it), or give the daemon another --listen address");
        } catch (IOException | RuntimeException e) {
            return CheckResult.failed(NAME, address + " cannot be bound: " + e.getMessage(), "give the daemon another --listen address");
        }
    }

    /**
     * Something accepted the connection: a live daemon answers HELLO_OK, or refuses a host without a
     * key (AUTHENTICATION) or with its connections full; anything else is in the way.
     */
    private CheckResult identify(SocketChannel socket, String adviceWhenForeign) {
        FrameChannel channel = new FrameChannel(socket, Protocol.CONTROL_FRAME_LIMIT);
        CompletableFuture<HelloOk> answer = new CompletableFuture<>();
        Thread handshake = new Thread(() -> {
            try {
                answer.complete(Handshake.client(channel, Role.HOST, Proofs.Channel.CONTROL, Optional.empty(), timeout));
            } catch (IOException | UromException | RuntimeException e) {
                answer.completeExceptionally(e);
            }
        }, "urom-doctor-handshake");
        handshake.setDaemon(true);
        handshake.start();
        try {
            HelloOk ok = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return CheckResult.passed(NAME, "a daemon is listening on " + address + " (protocol " + ok.version()
                    + ", max message size " + ok.maxMessageSize() + ")");
        } catch (TimeoutException e) {
            return CheckResult.failed(NAME, address + " is in use by another program (no UROM handshake within " + timeout.toMillis() + " ms)", adviceWhenForeign);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UromException refused && DAEMON_REFUSALS.contains(refused.status())) {
                return CheckResult.passed(NAME, "a daemon is listening on " + address + " (it refused a host without a key: "
                        + refused.getMessage() + ")");
            }
            return CheckResult.failed(NAME, address + " is in use by another program (the UROM handshake failed: " + e.getCause().getMessage() + ")", adviceWhenForeign);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CheckResult.failed(NAME, "interrupted while asking " + address, adviceWhenForeign);
        } finally {
            channel.close();
        }
    }

    /** The handshake refusals only a UROM daemon answers with. */
    private static final Set<UromStatus> DAEMON_REFUSALS = EnumSet.of(UromStatus.AUTHENTICATION, UromStatus.UNSUPPORTED_VERSION, UromStatus.FULL);

    private static boolean isSocketFile(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
