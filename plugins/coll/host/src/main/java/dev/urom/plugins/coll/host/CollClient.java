// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll.host;

import static java.util.Objects.requireNonNull;

import dev.urom.host.Notification;
import dev.urom.host.Worker;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.CommandType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The host side of the collectives plugin (docs/collectives.md) over one {@link Worker}: teams,
 * registered ranges and collectives. Each call sends one command at once and returns a future of
 * its answer, so a collective is non-blocking: post, compute, then {@code isDone()} (test),
 * {@code join()} (wait) or {@code thenAccept} (a callback). A future that does not succeed
 * completes exceptionally with a {@link CollException} (status, reason, detail), or a {@link
 * UromException} of UNEXPECTED for an answer the protocol does not allow.
 *
 * <p>Thread-safe: the worker's connection orders the commands; a team's collectives must be posted
 * in the same order on every rank, as in MPI.
 */
public final class CollClient {
    /** The device-side version this client speaks to. */
    public static final long PLUGIN_VERSION = CollLayout.PLUGIN_VERSION;

    /** A team as the plugin built it. */
    public record Team(long teamId, long rank, long size) {}

    private final Worker worker;
    private final long pluginId;
    private final AtomicLong cookies = new AtomicLong();

    /**
     * @param pluginId the plugin's id in the service's list
     * @param version its version there
     * @throws UromException UNSUPPORTED_VERSION when the plugin's version is not {@link #PLUGIN_VERSION}
     */
    public CollClient(Worker worker, long pluginId, long version) throws UromException {
        this.worker = requireNonNull(worker, "worker is null");
        if (version != PLUGIN_VERSION) {
            throw new UromException(
                    UromStatus.UNSUPPORTED_VERSION,
                    "the coll plugin is version " + version + ", this client speaks version " + PLUGIN_VERSION);
        }
        this.pluginId = pluginId;
    }

    public CompletableFuture<Team> createTeam(TeamSpec spec) {
        CollCommand.TeamCreate command = spec.withCookie(cookies.incrementAndGet());
        return send(command, CollNotification.TeamCreateDone.class)
                .thenApply(done -> new Team(done.teamId(), done.rank(), done.size()));
    }

    public CompletableFuture<Void> destroyTeam(long teamId) {
        return send(
                        new CollCommand.TeamDestroy(cookies.incrementAndGet(), teamId),
                        CollNotification.TeamDestroyDone.class)
                .thenApply(done -> null);
    }

    /**
     * Registers {@code length} bytes at {@code address} for reading and/or writing; the answer is
     * the handle that collectives may name.
     */
    public CompletableFuture<Long> map(long address, long length, boolean read, boolean write) {
        long access = (read ? CollLayout.ACCESS_READ : 0) | (write ? CollLayout.ACCESS_WRITE : 0);
        return send(
                        new CollCommand.MemMap(cookies.incrementAndGet(), address, length, access),
                        CollNotification.MemMapDone.class)
                .thenApply(CollNotification.MemMapDone::memh);
    }

    public CompletableFuture<Void> unmap(long handle) {
        return send(new CollCommand.MemUnmap(cookies.incrementAndGet(), handle), CollNotification.MemUnmapDone.class)
                .thenApply(done -> null);
    }

    /** Posts a collective on a team; the answer is its place in the team's order. */
    public CompletableFuture<Long> post(long teamId, CollArgs args) {
        CollCommand.Post command = CollCommand.Post.builder(cookies.incrementAndGet(), teamId)
                .coll(args.coll().code())
                .dtype(args.dtype().code())
                .op(args.op().code())
                .root(args.root())
                .flags(args.inPlace() ? CollLayout.IN_PLACE : 0)
                .count(args.count())
                .src(args.src())
                .dst(args.dst())
                .memh(args.srcMemh(), args.dstMemh())
                .build();
        return send(command, CollNotification.PostDone.class).thenApply(CollNotification.PostDone::sequence);
    }

    private <T extends CollNotification> CompletableFuture<T> send(CollCommand command, Class<T> answer) {
        return worker.submit(pluginId, command.encode()).thenApply(n -> answer(command, n, answer));
    }

    private static <T extends CollNotification> T answer(CollCommand command, Notification n, Class<T> type) {
        CommandType kind = command.type();
        if (n.payload().length == 0) {
            throw new CompletionException(new CollException(
                    n.status().isSuccess() ? UromStatus.UNEXPECTED : n.status(),
                    Reason.NONE,
                    0,
                    "coll " + kind + " refused by the worker: " + n.status()));
        }
        CollNotification decoded;
        try {
            decoded = CollNotification.decode(n.payload());
        } catch (CollProtocolException e) {
            throw new CompletionException(
                    new UromException(UromStatus.UNEXPECTED, "coll " + kind + " answer: " + e.getMessage()));
        }
        CollNotification.Header header = decoded.header();
        if (header.type() != kind.code() || header.cookie() != command.cookie() || !type.isInstance(decoded)) {
            throw new CompletionException(new UromException(
                    UromStatus.UNEXPECTED,
                    "coll " + kind + " answer is of type " + header.type() + " with cookie " + header.cookie()));
        }
        if (header.status() != 0) {
            Reason reason = header.reasonValue();
            throw new CompletionException(new CollException(
                    UromStatus.fromCode(header.status()),
                    reason == null ? Reason.NONE : reason,
                    header.detail(),
                    "coll " + kind + " failed: " + UromStatus.fromCode(header.status()) + " ("
                            + (reason == null ? "reason " + header.reason() : reason) + ", detail " + header.detail()
                            + ")"));
        }
        return type.cast(decoded);
    }
}
