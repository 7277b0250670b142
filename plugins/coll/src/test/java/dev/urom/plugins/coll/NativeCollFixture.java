// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollLayout;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.CommandType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import dev.urom.testkit.TestWorker;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.function.UnaryOperator;

/**
 * worker_coll.so in the test kit: a domain of instances in this process, whose host (for every
 * command) is this process unless the settings say otherwise, and helpers that send one command per rank and await every answer.
 * Commands are the protocol's {@link CollCommand}s, answers are checked through {@link CollNotification}; what is left here is
 * the tests' own: knobs, shorthands for POSTs, deliberately malformed bytes. Host buffers are JNA Memory, addressed by their
 * native addresses.
 */
final class NativeCollFixture implements AutoCloseable {
    static final Path SO = Path.of(System.getProperty("urom.coll.so", "target/worker_coll.so"));
    private static long nextCookie = 1000;

    final TestDomain domain;

    private NativeCollFixture(int workers, UnaryOperator<PluginTestKit.Builder> settings) {
        assertThat(Files.isRegularFile(SO)).as("%s is built", SO).isTrue();
        domain = settings.apply(PluginTestKit.plugin(SO).timeout(Duration.ofSeconds(30)))
                .openDomain(workers);
    }

    static NativeCollFixture open(int workers) {
        return new NativeCollFixture(workers, UnaryOperator.identity());
    }

    /** A domain whose workers' host is what settings say (PluginTestKit.Builder.hostProcess, noHostProcess). */
    static NativeCollFixture open(int workers, UnaryOperator<PluginTestKit.Builder> settings) {
        return new NativeCollFixture(workers, settings);
    }

    static long cookie() {
        return nextCookie++;
    }

    TestWorker worker(int id) {
        return domain.worker(id);
    }

    WorkerCommand send(int workerId, CollCommand command) {
        return worker(workerId).send(command.encode());
    }

    Answer await(int workerId, WorkerCommand sent) {
        return Answer.of(worker(workerId).awaitAnswer(sent).notification());
    }

    Answer call(int workerId, CollCommand command) {
        return call(workerId, command.encode());
    }

    /** Sends these bytes as they are, valid or not, and awaits the answer. */
    Answer call(int workerId, byte[] command) {
        return Answer.of(worker(workerId).call(command).notification());
    }

    /** Sends each worker its command (by domain id), then awaits every answer. */
    List<Answer> all(int[] workerIds, IntFunction<? extends CollCommand> commandOf) {
        List<WorkerCommand> sent = new ArrayList<>();
        for (int i = 0; i < workerIds.length; i++) {
            sent.add(send(workerIds[i], commandOf.apply(i)));
        }
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < workerIds.length; i++) {
            answers.add(await(workerIds[i], sent.get(i)));
        }
        return answers;
    }

    static int[] range(int n) {
        int[] ids = new int[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        return ids;
    }

    /** Creates team `teamId' over the given workers (rank i = workerIds[i]) as a list; every answer must be SUCCESS. */
    void team(int teamId, int[] workerIds, Knobs knobs) {
        long[] ids = new long[workerIds.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = workerIds[i];
        }
        List<Answer> answers = all(workerIds, rank -> knobs.list(cookie(), teamId, rank, ids));
        for (Answer a : answers) {
            a.isOk();
            assertThat(a.teamId()).isEqualTo(teamId);
        }
    }

    void team(int teamId, int size, Knobs knobs) {
        List<Answer> answers = all(range(size), rank -> knobs.range(cookie(), teamId, size, rank, 0, 1));
        answers.forEach(Answer::isOk);
    }

    /** A POST with root 0, no flags and no handles, under a fresh cookie. */
    static CollCommand.Post post(
            long teamId, CollType coll, DataType dtype, ReduceOp op, long count, long src, long dst) {
        return post(teamId, coll, dtype, op, 0, 0, count, src, dst);
    }

    /** A POST without handles, under a fresh cookie. */
    static CollCommand.Post post(
            long teamId,
            CollType coll,
            DataType dtype,
            ReduceOp op,
            long root,
            long flags,
            long count,
            long src,
            long dst) {
        return CollCommand.Post.builder(cookie(), teamId)
                .coll(coll.code())
                .dtype(dtype.code())
                .op(op.code())
                .root(root)
                .flags(flags)
                .count(count)
                .src(src)
                .dst(dst)
                .build();
    }

    /** A BARRIER of team teamId with every other field zero. */
    static CollCommand.Post barrier(long cookie, long teamId) {
        return CollCommand.Post.builder(cookie, teamId)
                .coll(CollType.BARRIER.code())
                .build();
    }

    /** The command's bytes with the byte at {@code offset} (a {@link CollLayout} offset) set to {@code value}: malformed on purpose. */
    static byte[] withByte(CollCommand command, int offset, int value) {
        byte[] bytes = command.encode();
        bytes[offset] = (byte) value;
        return bytes;
    }

    static Memory memory(long bytes) {
        Memory m = new Memory(Math.max(1, bytes));
        m.clear();
        return m;
    }

    static long address(Pointer p) {
        return Pointer.nativeValue(p);
    }

    @Override
    public void close() {
        domain.close();
    }

    /** A team's knobs (0 for a default), and the TEAM_CREATE commands that carry them. */
    record Knobs(long chunkBytes, long smallBytes, long timeoutMs) {
        static final Knobs DEFAULT = new Knobs(0, 0, 0);

        /** TEAM_CREATE of the ranks {@code start + i * stride}. */
        CollCommand.TeamCreate range(long cookie, long teamId, long size, long rank, long start, long stride) {
            return CollCommand.TeamCreate.range(
                    cookie, teamId, size, rank, start, stride, chunkBytes, smallBytes, timeoutMs);
        }

        /** TEAM_CREATE of the listed domain ids. */
        CollCommand.TeamCreate list(long cookie, long teamId, long rank, long[] ids) {
            return CollCommand.TeamCreate.list(cookie, teamId, rank, ids, chunkBytes, smallBytes, timeoutMs);
        }
    }

    /**
     * An answer of worker_coll.so: its header and, for a known command type, the notification {@link CollNotification#decode}
     * takes from it (so its length, version and reserved fields are the protocol's); an unknown type's answer is the header alone.
     */
    record Answer(CollNotification.Header header, CollNotification notification) {
        static Answer of(WorkerNotification n) {
            assertThat(n.status()).as("the framework's status of %s", n).isEqualTo(UromStatus.SUCCESS);
            byte[] bytes = n.payload();
            assertThat(bytes.length).as("answer length").isGreaterThanOrEqualTo(CollLayout.NOTIF_HDR_SIZE);
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int type = Short.toUnsignedInt(b.getShort(CollLayout.NOTIF_HDR_TYPE));
            if (CommandType.ofCode(type) != null) {
                try {
                    CollNotification decoded = CollNotification.decode(bytes);
                    return new Answer(decoded.header(), decoded);
                } catch (CollProtocolException e) {
                    throw new AssertionError("the answer does not decode: " + e.getMessage(), e);
                }
            }
            // the codec has no notification for an unknown type: read the header here
            assertThat(bytes.length)
                    .as("the answer to unknown command type %d", type)
                    .isEqualTo(CollLayout.NOTIF_HDR_SIZE);
            assertThat(Short.toUnsignedInt(b.getShort(CollLayout.NOTIF_HDR_VERSION)))
                    .as("version")
                    .isEqualTo(CollLayout.PROTOCOL_VERSION);
            return new Answer(
                    new CollNotification.Header(
                            type,
                            b.getInt(CollLayout.NOTIF_HDR_STATUS),
                            b.getLong(CollLayout.NOTIF_HDR_COOKIE),
                            b.getInt(CollLayout.NOTIF_HDR_REASON),
                            Integer.toUnsignedLong(b.getInt(CollLayout.NOTIF_HDR_DETAIL))),
                    null);
        }

        int type() {
            return header.type();
        }

        long cookie() {
            return header.cookie();
        }

        Reason reason() {
            return header.reasonValue();
        }

        long detail() {
            return header.detail();
        }

        /** The notification as the type expected. */
        <T extends CollNotification> T as(Class<T> type) {
            assertThat(notification).as("the notification of %s", this).isInstanceOf(type);
            return type.cast(notification);
        }

        long memh() {
            return as(CollNotification.MemMapDone.class).memh();
        }

        long sequence() {
            return as(CollNotification.PostDone.class).sequence();
        }

        long teamId() {
            if (notification instanceof CollNotification.TeamCreateDone d) {
                return d.teamId();
            }
            if (notification instanceof CollNotification.TeamDestroyDone d) {
                return d.teamId();
            }
            return as(CollNotification.PostDone.class).teamId();
        }

        Answer isOk() {
            assertThat(reason()).as("reason of %s", this).isEqualTo(Reason.NONE);
            assertThat(UromStatus.fromCode(header.status()))
                    .as("status of %s", this)
                    .isEqualTo(UromStatus.SUCCESS);
            return this;
        }

        Answer fails(UromStatus expectedStatus, Reason expectedReason) {
            assertThat(reason()).as("reason of %s", this).isEqualTo(expectedReason);
            assertThat(UromStatus.fromCode(header.status()))
                    .as("status of %s", this)
                    .isEqualTo(expectedStatus);
            return this;
        }

        Answer detail(long expected) {
            assertThat(detail()).as("detail of %s", this).isEqualTo(expected);
            return this;
        }

        @Override
        public String toString() {
            return "answer(type " + header.type() + ", status " + header.status() + ", reason " + header.reason()
                    + ", detail " + header.detail() + ", cookie " + header.cookie() + ")";
        }
    }
}
