// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import dev.urom.auth.Proofs;
import dev.urom.framework.auth.KeyDirectory;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
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
 * Would the daemon start on its listen address, with the key options it is given? Stateless; binds
 * (and releases at once) a TCP port to test it, never removes anything, and gives each handshake
 * {@code timeout} before the answer counts as missing. Its grades:
 *
 * <ul>
 *   <li>FAIL: a TCP address without {@code --auth-keys} or {@code --insecure-tcp}, or a key
 *       directory the daemon cannot use;
 *   <li>WARN: a TCP address with {@code --insecure-tcp} alone, served to anyone;
 *   <li>the address must be free or held by a live daemon: a Unix socket file that nobody answers on
 *       is stale (WARN: the daemon removes it when it starts); a TCP port that cannot be bound and
 *       does not answer the UROM handshake is held by another program (FAIL).
 * </ul>
 */
public final class ListenAddressCheck implements Check {
    static final String NAME = "listen address";

    private final ServiceAddress address;
    private final Duration timeout;
    private final Path authKeys;
    private final boolean insecureTcp;

    /**
     * @param address the daemon's listen address
     * @param timeout how long a handshake may take
     * @param authKeys the daemon's {@code --auth-keys} directory, or null when it has none
     * @param insecureTcp whether the daemon is given {@code --insecure-tcp}
     */
    public ListenAddressCheck(ServiceAddress address, Duration timeout, Path authKeys, boolean insecureTcp) {
        this.address = address;
        this.timeout = timeout;
        this.authKeys = authKeys;
        this.insecureTcp = insecureTcp;
    }

    @Override
    public CheckResult run() {
        CheckResult keys = keysProblem();
        if (keys != null) {
            return keys;
        }
        CheckResult found = address.isUnix() ? checkUnix(address.unixPath()) : checkTcp();
        if (!address.isUnix() && authKeys == null && found.grade() == CheckResult.Grade.OK) {
            return CheckResult.warned(
                    NAME,
                    found.detail() + "; with --insecure-tcp any client that reaches it may start workers without a key",
                    "give urom daemon --auth-keys DIR instead, one key file per principal (urom keygen makes one)");
        }
        return found;
    }

    /** Why the daemon would refuse to start with these keys on this address, or null when it would not. */
    private CheckResult keysProblem() {
        if (authKeys != null) {
            try {
                KeyDirectory.open(authKeys);
            } catch (UromException e) {
                return CheckResult.failed(
                        NAME,
                        "the daemon would not start: --auth-keys " + authKeys + ": " + e.getMessage(),
                        "fix the key directory (urom keygen makes a key file), or give another --auth-keys DIR");
            }
            return null;
        }
        if (DaemonSecurity.builder().insecureTcp(insecureTcp).build().admitsNobodyOn(address)) {
            return CheckResult.failed(
                    NAME,
                    "the daemon refuses to listen on " + address + " without keys to know who connects",
                    "give urom daemon and urom doctor --auth-keys DIR (one key file per principal; urom keygen makes one),"
                            + " or --insecure-tcp to let anyone who reaches the port in");
        }
        return null;
    }

    private CheckResult checkUnix(Path socket) {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return CheckResult.passed(NAME, address + " is free");
        }
        if (!isSocketFile(socket)) {
            return CheckResult.failed(
                    NAME,
                    socket + " exists and is not a socket",
                    "move that file away, or give the daemon another --listen address");
        }
        SocketChannel channel;
        try {
            channel = address.connect();
        } catch (ConnectException refused) {
            return CheckResult.warned(
                    NAME,
                    socket + " is a stale socket file: no process answers on it; the daemon removes it when it starts",
                    "nothing is needed; to tidy up, remove it (rm " + socket + ")");
        } catch (IOException e) {
            return CheckResult.failed(
                    NAME,
                    "cannot connect to " + address + ": " + e.getMessage(),
                    "check the permissions of " + socket
                            + " and its directory, or give the daemon another --listen address");
        }
        return identify(
                channel, "give the daemon another --listen address, or stop the program that listens on " + socket);
    }

    private CheckResult checkTcp() {
        try (ServerSocketChannel server = address.bind()) {
            return CheckResult.passed(NAME, address + " is free");
        } catch (BindException inUse) {
            SocketChannel channel;
            try {
                channel = address.connect();
            } catch (IOException e) {
                return CheckResult.failed(
                        NAME,
                        address + " cannot be bound (" + inUse.getMessage() + ") and does not answer (" + e.getMessage()
                                + ")",
                        "give the daemon another --listen address");
            }
            return identify(
                    channel,
                    "stop the program that holds port " + address.port()
                            + " (ss -ltnp shows it), or give the daemon another --listen address");
        } catch (IOException | RuntimeException e) {
            return CheckResult.failed(
                    NAME, address + " cannot be bound: " + e.getMessage(), "give the daemon another --listen address");
        }
    }

    /**
     * Something accepted the connection: a live daemon answers HELLO_OK, or refuses a host without a
     * key (AUTHENTICATION) or with its connections full; anything else is in the way.
     */
    private CheckResult identify(SocketChannel socket, String adviceWhenForeign) {
        FrameChannel channel = new FrameChannel(socket, Protocol.CONTROL_FRAME_LIMIT);
        CompletableFuture<HelloOk> answer = new CompletableFuture<>();
        Thread handshake = new Thread(
                () -> {
                    try {
                        answer.complete(Handshake.client(
                                channel, Role.HOST, Proofs.Channel.CONTROL, Optional.empty(), timeout));
                    } catch (IOException | UromException | RuntimeException e) {
                        answer.completeExceptionally(e);
                    }
                },
                "urom-doctor-handshake");
        handshake.setDaemon(true);
        handshake.start();
        try {
            HelloOk ok = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return CheckResult.passed(
                    NAME,
                    "a daemon is listening on " + address + " (protocol " + ok.version() + ", max message size "
                            + ok.maxMessageSize() + ")");
        } catch (TimeoutException e) {
            return CheckResult.failed(
                    NAME,
                    address + " is in use by another program (no UROM handshake within " + timeout.toMillis() + " ms)",
                    adviceWhenForeign);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UromException refused && DAEMON_REFUSALS.contains(refused.status())) {
                return CheckResult.passed(
                        NAME,
                        "a daemon is listening on " + address + " (it refused a host without a key: "
                                + refused.getMessage() + ")");
            }
            return CheckResult.failed(
                    NAME,
                    address + " is in use by another program (the UROM handshake failed: "
                            + e.getCause().getMessage() + ")",
                    adviceWhenForeign);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CheckResult.failed(NAME, "interrupted while asking " + address, adviceWhenForeign);
        } finally {
            channel.close();
        }
    }

    /** The handshake refusals only a UROM daemon answers with. */
    private static final Set<UromStatus> DAEMON_REFUSALS =
            EnumSet.of(UromStatus.AUTHENTICATION, UromStatus.UNSUPPORTED_VERSION, UromStatus.FULL);

    private static boolean isSocketFile(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
