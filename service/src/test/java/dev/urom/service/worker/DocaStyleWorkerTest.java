// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.ServiceAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real worker process running a plugin written the DOCA way ({@link
 * NativeFixtures#compileDocaStyle}: compat headers, {@code -fvisibility=hidden}, entry points
 * without a visibility attribute), with {@code MALLOC_PERTURB_} set so that glibc fills what is
 * freed. The host must get what such a plugin means: its inline receive data, the plugin's own
 * status for a command it refuses (never a status its fixed-size {@code notif_pack} garbled), one
 * answer for a command it both answers and refuses, and its output and glibc's abort message in
 * the worker's log.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DocaStyleWorkerTest {
    private static final long PLUGIN_ID = 0x8;
    private static final int MAX_MSG = 256 * 1024;
    private static final Map<String, String> PERTURB = Map.of("MALLOC_PERTURB_", "165");

    @TempDir
    static Path pluginDir;

    private static Path plugin;

    @TempDir
    Path dir;

    @RegisterExtension
    final WorkerProcesses workers = new WorkerProcesses();

    @BeforeAll
    static void compilePlugin() {
        plugin = NativeFixtures.compileDocaStyle(pluginDir, "doca_style.so", false);
    }

    private WorkerProcess start() throws Exception {
        ServiceAddress socket = ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock"));
        WorkerProcess worker = WorkerProcess.start(
                dir.resolve("log"), WorkerProcess.args(socket, MAX_MSG, List.of(plugin + ":" + PLUGIN_ID)), PERTURB);
        workers.add(worker);
        assertThat(worker.replyLine)
                .as("the worker loaded the plugin whose entry points have no attribute")
                .startsWith("READY ");
        return worker;
    }

    private static Notify receiveNotify(Connected host) throws Exception {
        Message message = host.channel().receive().message();
        assertThat(message).isInstanceOf(Notify.class);
        return (Notify) message;
    }

    private static void send(Connected host, long context, long op, long argument) throws Exception {
        host.channel().send(0, new Command(PLUGIN_ID, context, NativeFixtures.docaStyleCommand(op, context, argument)));
    }

    @Test
    void anInlineReceiveReachesTheHostWithItsDataPackedFromTheLiveDescriptor() throws Exception {
        Connected host = start().connect();
        for (int count : new int[] {8, 4096, 100_000}) {
            send(host, count, NativeFixtures.DOCA_STYLE_RECV, count);
            Notify notify = receiveNotify(host);

            assertThat(notify.uromContext()).isEqualTo(count);
            assertThat(notify.status()).isEqualTo(UromStatus.SUCCESS);
            byte[] payload = notify.payload();
            assertThat(payload).hasSize(NativeFixtures.DOCA_STYLE_NOTIFICATION_BYTES + count);
            assertThat(ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN).getLong(24))
                    .as("count")
                    .isEqualTo(count);
            for (int i = 0; i < count; i++) {
                byte expected = NativeFixtures.docaStyleDataByte(i);
                if (payload[NativeFixtures.DOCA_STYLE_NOTIFICATION_BYTES + i] != expected) {
                    throw new AssertionError("inline byte " + i + " of " + count + " is 0x"
                            + Integer.toHexString(payload[NativeFixtures.DOCA_STYLE_NOTIFICATION_BYTES + i] & 0xff)
                            + ", not 0x"
                            + Integer.toHexString(expected & 0xff));
                }
            }
        }
    }

    @Test
    void commandsThePluginOrTheWorkerRefusesAreAnsweredByTheWorkerWithTheirStatusNoPayloadAndThePluginsReason()
            throws Exception {
        Connected host = start().connect();
        host.channel().send(0, new Command(PLUGIN_ID, 1, new byte[5]));
        assertThat(receiveNotify(host))
                .as("worker_cmd's INVALID_VALUE")
                .isEqualTo(
                        new Notify(PLUGIN_ID, 1, UromStatus.INVALID_VALUE, new byte[0], "command of 5 bytes refused"));

        host.channel().send(0, new Command(PLUGIN_ID, 2, new byte[MAX_MSG]));
        assertThat(receiveNotify(host))
                .as("over the maximum message size")
                .isEqualTo(new Notify(PLUGIN_ID, 2, UromStatus.TOO_BIG, new byte[0]));

        send(host, 3, NativeFixtures.DOCA_STYLE_RECV, 16);
        assertThat(receiveNotify(host).uromContext()).isEqualTo(3);
    }

    @Test
    void anErrorThePluginBothQueuesAndReturnsIsOneAnswer() throws Exception {
        Connected host = start().connect();
        send(host, 1, NativeFixtures.DOCA_STYLE_SEND, 99);
        send(host, 2, NativeFixtures.DOCA_STYLE_RECV, 16);

        assertThat(receiveNotify(host))
                .isEqualTo(new Notify(PLUGIN_ID, 1, UromStatus.NOT_FOUND, new byte[0], "no peer at destination 99"));
        Notify next = receiveNotify(host);
        assertThat(next.uromContext())
                .as("the answer after the refused command's")
                .isEqualTo(2);
        assertThat(next.status()).isEqualTo(UromStatus.SUCCESS);
    }

    @Test
    void aJavaPluginsPackerNeverPacksTheWorkersOwnAnswers() throws Exception {
        Path jar = WorkerFixtures.javaPluginJar(
                dir.resolve("fixed_pack.jar"), "fixed_pack", "1", FixedPackJavaPlugin.class);
        ServiceAddress socket = ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock"));
        WorkerProcess worker =
                WorkerProcess.start(dir.resolve("log"), WorkerProcess.args(socket, MAX_MSG, List.of(jar + ":0x20")));
        workers.add(worker);
        Connected host = worker.connect();

        host.channel().send(0, new Command(0x20, 1, new byte[0]));
        assertThat(receiveNotify(host))
                .as("the worker's own answer, not through its packer, with the Java plugin's message as the reason")
                .isEqualTo(new Notify(0x20, 1, UromStatus.INVALID_VALUE, new byte[0], "an empty command"));
        host.channel().send(0, new Command(0x20, 2, new byte[MAX_MSG]));
        assertThat(receiveNotify(host)).isEqualTo(new Notify(0x20, 2, UromStatus.TOO_BIG, new byte[0]));
        host.channel().send(0, new Command(0x20, 3, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        assertThat(receiveNotify(host))
                .as("the plugin's own answer, through its packer")
                .isEqualTo(new Notify(0x20, 3, UromStatus.SUCCESS, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    }
}
