// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static java.util.Objects.requireNonNull;

import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollCommand.MemMap;
import dev.urom.plugins.coll.protocol.CollCommand.MemUnmap;
import dev.urom.plugins.coll.protocol.CollCommand.Post;
import dev.urom.plugins.coll.protocol.CollCommand.TeamCreate;
import dev.urom.plugins.coll.protocol.CollCommand.TeamDestroy;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollNotification.Header;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.CommandType;
import dev.urom.plugins.coll.protocol.Hello;
import dev.urom.plugins.coll.protocol.MembersHash;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import dev.urom.ucx.UcpContext;
import dev.urom.ucx.UcpEndpoint;
import dev.urom.ucx.UcpTagSlots;
import dev.urom.ucx.UcpWorker;
import dev.urom.ucx.UcxException;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The collectives plugin in Java ({@code worker_coll_java.jar}), the twin of {@code
 * worker_coll.so}: the commands, teams, agreement, algorithms and worker-to-worker messages of
 * {@code docs/collectives.md}, over UCP (transport {@value CollLayout#TRANSPORT}, so that C and
 * Java ranks mix in one team), with the hosts' memory read and written through the kernel's
 * cross-memory attach ({@link HostMemory}) on the process the framework names for the command's
 * connection, located once per connection at its first TEAM_CREATE or MEM_MAP.
 *
 * <p>Every command is answered exactly once, with the framework status SUCCESS and the protocol's
 * status and reason inside: bytes that do not decode at once (BAD_COMMAND), TEAM_CREATE when its
 * HELLOs are in or it failed, POST when its collective has completed on this rank. Nothing blocks:
 * {@link #progress} progresses the UCP worker, fails the teams of peers whose endpoints failed,
 * and moves every team on ({@link Team}). Endpoints are kept per domain id and shared by teams.
 *
 * <p>Not thread-safe: the worker drives a plugin from one thread, which is also the UCP worker's.
 * {@link #open} throws INITIALIZATION when UCX cannot start; nothing else throws to the worker.
 */
public final class CollPlugin implements PluginIface {
    private static final Logger LOG = LogManager.getLogger(CollPlugin.class);
    private static final String YAMA_HINT =
            "; with Yama (kernel.yama.ptrace_scope 1) the host must allow it: prctl(PR_SET_PTRACER),"
                    + " docs/security.md";
    private static final int PROGRESS_ROUNDS = 64;

    private final ArrayDeque<WorkerNotification> ready = new ArrayDeque<>();
    private final Map<Long, Team> teams = new HashMap<>();
    private final List<Team> refusals = new ArrayList<>();
    private final Map<Long, UcpEndpoint> endpoints = new HashMap<>();
    private final Map<Long, Connection> connections = new HashMap<>();
    private final List<ByteBuffer> abandoned = new ArrayList<>();
    private WorkerContext context;
    private UcpContext ucp;
    private UcpWorker worker;
    private UcpTagSlots slots;
    private byte[] address;
    private int eventFd = -1;
    private boolean progressCut;

    /** The plugin as the worker loads it; each connection's host is the one the framework names ({@link WorkerContext#hostProcess}). */
    public CollPlugin() {}

    @Override
    public void open(WorkerContext context) throws UromException {
        this.context = requireNonNull(context, "context is null");
        try {
            ucp = UcpContext.open();
            worker = UcpWorker.open(ucp);
            address = worker.address();
            eventFd = worker.eventFd();
            slots = worker.tagSlots(256);
        } catch (UcxException e) {
            closeUcx();
            throw new UromException(
                    UromStatus.INITIALIZATION, "the collectives plugin cannot start UCX: " + e.getMessage());
        }
    }

    /**
     * Fails every team (TEAM_DESTROYED), closes the endpoints by force (a send still waiting for a
     * peer that does not progress is cancelled, so that UCX destroys no endpoint with requests on
     * it), then the worker and the host connections.
     */
    @Override
    public void close() {
        for (Team team : teams.values()) {
            team.fail(Reason.TEAM_DESTROYED, 0);
        }
        for (Team team : refusals) {
            team.fail(Reason.TEAM_DESTROYED, 0);
        }
        teams.clear();
        refusals.clear();
        for (UcpEndpoint endpoint : endpoints.values()) {
            endpoint.close(true);
        }
        endpoints.clear();
        closeUcx();
        abandoned.clear();
        connections.values().forEach(Connection::dispose);
        connections.clear();
        ready.clear();
    }

    private void closeUcx() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
        if (ucp != null) {
            ucp.close();
            ucp = null;
        }
    }

    @Override
    public byte[] address() throws UromException {
        if (address == null) {
            throw new UromException(UromStatus.BAD_STATE, "the collectives plugin has no address before it is opened");
        }
        return address.clone();
    }

    @Override
    public Optional<String> transport() {
        return Optional.of(CollLayout.TRANSPORT);
    }

    @Override
    public OptionalInt wakeupFd() {
        return worker == null ? OptionalInt.empty() : OptionalInt.of(eventFd);
    }

    /** Arms the worker's descriptor only when nothing is pending: a collective in flight has a clock to watch. */
    @Override
    public boolean armWakeup() throws UromException {
        if (worker == null) {
            throw new UromException(UromStatus.BAD_STATE, "the collectives plugin is not open");
        }
        if (!ready.isEmpty() || progressCut || !refusals.isEmpty()) {
            return false;
        }
        for (Team team : teams.values()) {
            if (team.busy()) {
                return false;
            }
        }
        try {
            return worker.arm();
        } catch (UcxException e) {
            throw new UromException(
                    UromStatus.IO_FAILED, "the collectives plugin cannot arm its wake-up: " + e.getMessage());
        }
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (worker == null) {
            throw new UromException(UromStatus.BAD_STATE, "the collectives plugin is not open");
        }
        CollCommand decoded;
        try {
            decoded = CollCommand.decode(command.payload());
        } catch (CollProtocolException e) {
            long[] typeAndCookie = CollCommand.typeAndCookie(command.payload());
            LOG.warn("collectives plugin of worker {}: {}", context.workerId(), e.getMessage());
            answer(
                    command,
                    typeAndCookie == null
                            ? CollNotification.failure(0, 0, e.reason(), 0)
                            : CollNotification.failure((int) typeAndCookie[0], typeAndCookie[1], e.reason(), 0));
            return;
        }
        if (decoded instanceof TeamCreate create) {
            teamCreate(command, create);
        } else if (decoded instanceof TeamDestroy destroy) {
            teamDestroy(command, destroy);
        } else if (decoded instanceof MemMap map) {
            memMap(command, map);
        } else if (decoded instanceof MemUnmap unmap) {
            memUnmap(command, unmap);
        } else if (decoded instanceof Post post) {
            post(command, post);
        }
    }

    private void answer(WorkerCommand command, byte[] payload) {
        ready.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, payload));
    }

    private static Header failure(CommandType type, long cookie, Reason reason, long detail) {
        return Header.failure(type.code(), cookie, reason, detail);
    }

    /**
     * Checks a TEAM_CREATE in the order of the specification's corner cases and answers a failure
     * at once; knobs out of bounds and an unreachable host are also told to the other members (a
     * refusing HELLO), the rest to the host only.
     */
    private void teamCreate(WorkerCommand command, TeamCreate create) {
        if (create.teamId() < 1 || create.teamId() > CollLayout.TEAM_ID_MAX) {
            answerCreate(command, create, Reason.BAD_COMMAND, 0);
            return;
        }
        Reason reason = membersProblem(create);
        long chunk = create.chunkBytes() == 0 ? CollLayout.CHUNK_DEFAULT : create.chunkBytes();
        long small = create.smallBytes() == 0 ? CollLayout.SMALL_DEFAULT : create.smallBytes();
        long timeout = create.timeoutMs() == 0 ? CollLayout.TIMEOUT_MS_DEFAULT : create.timeoutMs();
        if (reason == Reason.NONE
                && (chunk < CollLayout.CHUNK_MIN
                        || chunk > CollLayout.CHUNK_MAX
                        || small > CollLayout.SMALL_MAX
                        || timeout > CollLayout.TIMEOUT_MS_MAX)) {
            reason = Reason.KNOBS;
        }
        if (reason == Reason.NONE && teams.containsKey(create.teamId())) {
            reason = Reason.TEAM_EXISTS;
        }
        if (reason == Reason.NONE && teams.size() >= CollLayout.TEAMS_PER_WORKER) {
            reason = Reason.TOO_MANY;
        }
        Connection connection = null;
        if (reason == Reason.NONE) {
            connection = connection(command.destId());
            if (connection == null || !attachable(connection)) {
                reason = Reason.HOST_UNREACHABLE;
            }
        }
        boolean told = reason == Reason.KNOBS || reason == Reason.HOST_UNREACHABLE;
        if (reason != Reason.NONE && !told) {
            answerCreate(command, create, reason, 0);
            return;
        }
        int size = (int) create.size();
        int rank = (int) create.rank();
        long[] ids = new long[size];
        for (int i = 0; i < size; i++) {
            ids[i] = create.memberId(i);
        }
        UcpEndpoint[] peers = new UcpEndpoint[size];
        for (int i = 0; i < size; i++) {
            byte[] peerAddress;
            try {
                peerAddress = context.domain().address(ids[i]);
            } catch (UromException e) {
                answerCreate(command, create, told ? reason : Reason.NO_DOMAIN, told ? 0 : i);
                return;
            }
            if (i == rank) {
                if (!Arrays.equals(peerAddress, address)) {
                    answerCreate(command, create, told ? reason : Reason.BAD_MEMBERS, told ? 0 : i);
                    return;
                }
                continue;
            }
            try {
                peers[i] = endpoint(ids[i], peerAddress);
            } catch (UcxException e) {
                LOG.warn(
                        "collectives plugin of worker {}: cannot reach member {}: {}",
                        context.workerId(),
                        ids[i],
                        e.getMessage());
                answerCreate(command, create, Reason.TRANSPORT, -e.status() & 0xffff_ffffL);
                return;
            }
        }
        Hello hello = new Hello(create.teamId(), size, rank, MembersHash.of(ids), chunk, small, timeout, reason.code());
        Team team = new Team(
                create.teamId(),
                command.destId(),
                size,
                rank,
                hello,
                peers,
                connection,
                slots,
                ready::add,
                abandoned::add);
        long now = System.nanoTime();
        if (told) {
            answerCreate(command, create, reason, 0);
            team.startRefusal(now);
            refusals.add(team);
            return;
        }
        teams.put(create.teamId(), team);
        team.startCreation(command, create.cookie(), now);
    }

    /** The members' problem (BAD_MEMBERS) or NONE: size, rank, stride, list length, distinct ids. */
    private static Reason membersProblem(TeamCreate create) {
        long size = create.size();
        if (size < 1 || size > CollLayout.TEAM_SIZE_MAX || create.rank() >= size) {
            return Reason.BAD_MEMBERS;
        }
        if (create.members() == CollLayout.MEMBERS_LIST) {
            if (size > CollLayout.TEAM_LIST_MAX) {
                return Reason.BAD_MEMBERS;
            }
        } else if (create.stride() == 0) {
            return Reason.BAD_MEMBERS;
        }
        Set<Long> seen = new HashSet<>();
        for (int i = 0; i < size; i++) {
            if (!seen.add(create.memberId(i))) {
                return Reason.BAD_MEMBERS;
            }
        }
        return Reason.NONE;
    }

    private void answerCreate(WorkerCommand command, TeamCreate create, Reason reason, long detail) {
        answer(
                command,
                new CollNotification.TeamCreateDone(
                                failure(CommandType.TEAM_CREATE, create.cookie(), reason, detail),
                                create.teamId(),
                                0,
                                0)
                        .encode());
    }

    private UcpEndpoint endpoint(long domainId, byte[] peerAddress) throws UcxException {
        UcpEndpoint endpoint = endpoints.get(domainId);
        if (endpoint == null) {
            endpoint = worker.connect(peerAddress);
            endpoints.put(domainId, endpoint);
        }
        return endpoint;
    }

    /** The connection's host, located once; null when it cannot be located. */
    private Connection connection(long destId) {
        Connection connection = connections.get(destId);
        if (connection == null) {
            try {
                connection = new Connection(context.hostProcess(destId));
            } catch (UromException e) {
                LOG.info(
                        "collectives plugin of worker {}: host of connection {} is unreachable: {}",
                        context.workerId(),
                        destId,
                        e.getMessage());
                return null;
            }
            connections.put(destId, connection);
        }
        return connection;
    }

    /** Whether this worker may attach to the connection's host memory; says why not in the log. */
    private boolean attachable(Connection connection) {
        int refusal = connection.memory().attachRefusal();
        if (refusal != 0) {
            LOG.warn(
                    "collectives plugin of worker {}: cross-memory attach to host process {} refused (errno {}): unreachable{}",
                    context.workerId(),
                    connection.memory().host().pid(),
                    refusal,
                    refusal == 1 ? YAMA_HINT : "");
        }
        return refusal == 0;
    }

    private Team ownTeam(long destId, long teamId) {
        Team team = teams.get(teamId);
        return team == null || team.destId != destId ? null : team;
    }

    private void teamDestroy(WorkerCommand command, TeamDestroy destroy) {
        Team team = ownTeam(command.destId(), destroy.teamId());
        Header header;
        if (team == null) {
            header = failure(CommandType.TEAM_DESTROY, destroy.cookie(), Reason.TEAM_UNKNOWN, 0);
        } else {
            teams.remove(destroy.teamId());
            team.fail(Reason.TEAM_DESTROYED, 0);
            header = Header.success(CommandType.TEAM_DESTROY, destroy.cookie());
        }
        answer(command, new CollNotification.TeamDestroyDone(header, destroy.teamId()).encode());
    }

    private void memMap(WorkerCommand command, MemMap map) {
        Connection connection = connection(command.destId());
        long result = connection == null
                ? -Reason.HOST_UNREACHABLE.code()
                : connection.map(map.address(), map.length(), map.access());
        Header header = result > 0
                ? Header.success(CommandType.MEM_MAP, map.cookie())
                : failure(CommandType.MEM_MAP, map.cookie(), Reason.ofCode(-result), 0);
        answer(command, new CollNotification.MemMapDone(header, Math.max(result, 0)).encode());
    }

    private void memUnmap(WorkerCommand command, MemUnmap unmap) {
        Connection connection = connections.get(command.destId());
        boolean known = connection != null && connection.unmap(unmap.memh());
        Header header = known
                ? Header.success(CommandType.MEM_UNMAP, unmap.cookie())
                : failure(CommandType.MEM_UNMAP, unmap.cookie(), Reason.BAD_MEMH, 0);
        answer(command, new CollNotification.MemUnmapDone(header).encode());
    }

    private void post(WorkerCommand command, Post post) {
        Team team = ownTeam(command.destId(), post.teamId());
        Reason reason = Reason.NONE;
        long detail = 0;
        if (team == null || team.state() == Team.State.CREATING) {
            reason = Reason.TEAM_UNKNOWN;
        } else if (team.state() == Team.State.FAILED) {
            reason = Reason.TEAM_FAILED;
            detail = team.failedRank();
        } else if (team.pending() >= CollLayout.INFLIGHT_MAX) {
            reason = Reason.TOO_MANY;
        }
        if (reason != Reason.NONE) {
            answer(
                    command,
                    new CollNotification.PostDone(
                                    failure(CommandType.POST, post.cookie(), reason, detail), post.teamId(), 0)
                            .encode());
            return;
        }
        Collective collective =
                new Collective(command, post, team.peekSequence(), team, connections.get(command.destId()));
        if (collective.refusal == Reason.NO_MEMORY) {
            answer(
                    command,
                    new CollNotification.PostDone(
                                    failure(CommandType.POST, post.cookie(), Reason.NO_MEMORY, 0), post.teamId(), 0)
                            .encode());
            return;
        }
        team.nextSequence();
        team.enqueue(collective);
        team.advance(System.nanoTime());
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) throws UromException {
        if (worker == null) {
            return;
        }
        int rounds = 0;
        while (rounds < PROGRESS_ROUNDS && worker.progress() != 0) {
            rounds++;
        }
        progressCut = rounds == PROGRESS_ROUNDS;
        for (UcpEndpoint failed : worker.takeFailedEndpoints()) {
            dropEndpoint(failed);
        }
        long now = System.nanoTime();
        for (Iterator<Team> it = teams.values().iterator(); it.hasNext(); ) {
            Team team = it.next();
            team.advance(now);
            if (team.state() == Team.State.FAILED && !team.created()) {
                it.remove();
            }
        }
        refusals.removeIf(team -> team.refusalDone(now));
        while (!ready.isEmpty()) {
            notifications.add(ready.remove());
        }
    }

    /** A peer's endpoint failed: every team with that peer fails (PEER_FAILED, its rank), and the endpoint is closed. */
    private void dropEndpoint(UcpEndpoint failed) {
        for (Team team : teams.values()) {
            int rank = team.rankOf(failed);
            if (rank >= 0 && team.state() != Team.State.FAILED) {
                LOG.warn(
                        "collectives plugin of worker {}: team {} lost rank {}", context.workerId(), team.teamId, rank);
                team.fail(Reason.PEER_FAILED, rank);
            }
        }
        for (Team team : refusals) {
            if (team.uses(failed)) {
                team.fail(Reason.PEER_FAILED, team.rankOf(failed));
            }
        }
        endpoints.values().removeIf(e -> e == failed);
        failed.close(true);
    }
}
