// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static dev.urom.service.worker.DataSocketProbes.PATIENCE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.Proofs;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.ServiceAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A worker sleeps until there is work: with a command in flight on a plugin that has an armed
 * wake-up descriptor it does not call progress in a loop, and the answer arrives promptly once the
 * descriptor fires; a plugin without one (or whose arm says AGAIN or fails) is polled as before.
 * Real worker processes; the native fixture is {@code wakeup_plugin.c}, the Java one {@link
 * WakeupJavaPlugin}. Progress calls are counted by the plugin over a window, not timed.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class WorkerWakeupTest {
    private static final long ID = 0x4;
    private static final long OTHER_ID = 0x8;
    private static final long WAIT = 1;
    private static final long COUNT = 2;
    /** The window over which progress calls are counted. */
    private static final long WINDOW_MS = 1000;
    /** What a sleeping worker may call progress in that window (a wake per armed-sleep timeout, the COUNT commands themselves). */
    private static final long SLEEPING_MAX_CALLS = 20;
    /** What a polling worker calls at least (it parks 100 us at most between polls). */
    private static final long POLLING_MIN_CALLS = 500;

    private static final AtomicLong CONTEXTS = new AtomicLong(1);

    @TempDir
    Path dir;

    @RegisterExtension
    final WorkerProcesses workers = new WorkerProcesses();

    private Path plugin(String kind) throws Exception {
        Path plugins = dir.resolve("plugins");
        return switch (kind) {
            case "native" -> NativeFixtures.compileWakeupPlugin(plugins, "wakeup.so");
            case "java" ->
                WorkerFixtures.javaPluginJar(
                        Files.createDirectories(plugins).resolve("wakeup_java.jar"),
                        "wakeup_java",
                        "1",
                        WakeupJavaPlugin.class);
            case "polled" -> NativeFixtures.compileWakeupPlugin(plugins, "polled.so", "-DNO_WAKEUP");
            case "unsupported" -> NativeFixtures.compileWakeupPlugin(plugins, "unsupported.so", "-DWAKEUP_UNSUPPORTED");
            case "again" -> NativeFixtures.compileWakeupPlugin(plugins, "again.so", "-DARM_STATUS=UROM_ERR_AGAIN");
            case "failing" ->
                NativeFixtures.compileWakeupPlugin(plugins, "failing.so", "-DARM_STATUS=UROM_ERR_IO_FAILED");
            default -> throw new AssertionError(kind);
        };
    }

    private WorkerProcess start(String... items) throws Exception {
        return workers.add(WorkerProcess.start(
                dir.resolve("log"),
                WorkerProcess.args(ServiceAddress.unix(dir.resolve("run").resolve("w.sock")), 4096, List.of(items))));
    }

    private static long send(Connected host, long pluginId, long op, long arg) throws Exception {
        long context = CONTEXTS.getAndIncrement();
        host.channel()
                .send(
                        0,
                        new Command(
                                pluginId,
                                context,
                                ByteBuffer.allocate(16)
                                        .order(ByteOrder.LITTLE_ENDIAN)
                                        .putLong(op)
                                        .putLong(arg)
                                        .array()));
        return context;
    }

    private static Notify receive(Connected host, long context) throws Exception {
        Message message = host.channel().receiveWithin(PATIENCE).message();
        assertThat(message).isInstanceOf(Notify.class);
        Notify notify = (Notify) message;
        assertThat(notify.uromContext()).isEqualTo(context);
        assertThat(notify.status()).isEqualTo(UromStatus.SUCCESS);
        return notify;
    }

    /** The plugin's progress calls so far. */
    private static long progressCalls(Connected host, long pluginId) throws Exception {
        long context = send(host, pluginId, COUNT, 0);
        return ByteBuffer.wrap(receive(host, context).payload())
                .order(ByteOrder.LITTLE_ENDIAN)
                .getLong();
    }

    /** How often the plugin's progress is called over {@link #WINDOW_MS} while a WAIT that never ends is in flight. */
    private static long callsInAWindowWithAPendingWait(Connected host, long pluginId, long countedId) throws Exception {
        send(host, pluginId, WAIT, 0);
        long before = progressCalls(host, countedId);
        // a measured window: nothing is awaited here, the worker is left alone for it
        Thread.sleep(WINDOW_MS);
        return progressCalls(host, countedId) - before;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"native", "java"})
    void aWorkerWithAPendingCommandSleeps(String kind) throws Exception {
        WorkerProcess worker = start(plugin(kind) + ":" + ID);
        Connected host = worker.connect();
        assertThat(callsInAWindowWithAPendingWait(host, ID, ID))
                .as("progress calls in %d ms", WINDOW_MS)
                .isLessThanOrEqualTo(SLEEPING_MAX_CALLS);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"native", "java"})
    void theAnswerArrivesPromptlyAfterTheDescriptorFires(String kind) throws Exception {
        WorkerProcess worker = start(plugin(kind) + ":" + ID);
        Connected host = worker.connect();
        List<Long> latencies = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            long before = progressCalls(host, ID);
            long context = send(host, ID, WAIT, 300_000);
            Notify answer = receive(host, context);
            long arrived = System.nanoTime();
            long due = ByteBuffer.wrap(answer.payload())
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .getLong();
            latencies.add(TimeUnit.NANOSECONDS.toMillis(arrived - due));
            assertThat(progressCalls(host, ID) - before)
                    .as("progress calls over a 300 ms wait")
                    .isLessThanOrEqualTo(SLEEPING_MAX_CALLS);
        }
        // an armed sleep lasts up to 1000 ms: an answer that waited for its end would come ~700 ms late
        assertThat(latencies)
                .as("ms from the timer's expiry to the answer at the host")
                .allSatisfy(ms -> assertThat(ms).isBetween(0L, 300L));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"polled", "unsupported", "again", "failing"})
    void aPluginWithoutAnArmedDescriptorIsPolledAndStillAnswered(String kind) throws Exception {
        WorkerProcess worker = start(plugin(kind) + ":" + ID);
        Connected host = worker.connect();
        long context = send(host, ID, WAIT, 20_000);
        receive(host, context);
        assertThat(callsInAWindowWithAPendingWait(host, ID, ID))
                .as("progress calls in %d ms", WINDOW_MS)
                .isGreaterThanOrEqualTo(POLLING_MIN_CALLS);
        if (kind.equals("failing")) {
            assertThat(worker.log())
                    .contains("could not arm its wake-up descriptor: IO_FAILED: ")
                    .contains("urom_plugin_arm_wakeup returned IO_FAILED (17); it is polled from now on");
        }
    }

    @Test
    void aPluginWithoutADescriptorKeepsTheWorkerPollingForAllOfThem() throws Exception {
        WorkerProcess worker = start(plugin("native") + ":" + ID, plugin("polled") + ":" + OTHER_ID);
        Connected host = worker.connect();
        send(host, ID, WAIT, 0);
        assertThat(callsInAWindowWithAPendingWait(host, OTHER_ID, ID))
                .as("the sleeping plugin's progress calls in %d ms", WINDOW_MS)
                .isGreaterThanOrEqualTo(POLLING_MIN_CALLS);
    }

    @Test
    void aJavaPluginsTransportReachesItsAddressReply() throws Exception {
        WorkerProcess worker = start(plugin("java") + ":" + ID);
        Connected host = worker.connect();
        host.channel().send(5, new AddressRequest(ID));
        AddressReply reply =
                (AddressReply) host.channel().receiveWithin(PATIENCE).message();
        assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reply.transport()).isEqualTo("ucp-tag");
        assertThat(reply.seal()).isEqualTo(Proofs.seal(WorkerProcess.ACCESS.sealKey(), ID, "ucp-tag", reply.address()));
    }
}
