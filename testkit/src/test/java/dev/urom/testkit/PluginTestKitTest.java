// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import static dev.urom.testkit.PluginAssertions.assertThat;
import static dev.urom.testkit.PluginAssertions.assertThatNotifications;
import static dev.urom.testkit.PluginAssertions.assertThatThrownBy;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PluginTestKitTest {
    private static final Duration SHORT = Duration.ofMillis(200);

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    private static TestWorker scripted() {
        return PluginTestKit.plugin(ScriptedPlugin::new).open();
    }

    @Test
    void aCallReturnsTheAnswerToItsCommand() {
        try (TestWorker worker = scripted()) {
            WorkerCommand command = worker.send(ascii("echo hello"));

            assertThat(worker.awaitAnswer(command))
                    .answers(command)
                    .isSuccessful()
                    .hasPayload(ascii("hello"));
            assertThat(worker.pluginName()).isEqualTo("ScriptedPlugin");
            assertThat(command.type()).isEqualTo(PluginTestKit.DEFAULT_PLUGIN_ID);
            assertThat(command.destId()).isEqualTo(PluginTestKit.DEFAULT_DEST_ID);
        }
    }

    @Test
    void aWrongPayloadFailsWithTheFirstDifferentByte() {
        try (TestWorker worker = scripted()) {
            WorkerAnswer answer = worker.call(ascii("echo abc"));

            assertThatThrownBy(() -> assertThat(answer).hasPayload(ascii("abd")))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("first difference at byte 2: 0x63, expected 0x64")
                    .hasMessageContaining("3 bytes 616263");
            assertThatThrownBy(() -> assertThat(answer).hasPayloadHex("61"))
                    .hasMessageContaining("lengths differ: 3 bytes, expected 1");
            assertThatThrownBy(() -> assertThat(answer).hasStatus(UromStatus.NOT_FOUND))
                    .hasMessageContaining("expected status NOT_FOUND but got SUCCESS");
        }
    }

    @Test
    void aRefusalCarriesItsStatusAndThePluginsReason() {
        try (TestWorker worker = scripted()) {
            WorkerAnswer answer = worker.call(ascii("refuse because"));

            assertThat(answer)
                    .isRefusedWith(UromStatus.INVALID_VALUE)
                    .hasEmptyPayload()
                    .hasReasonContaining("refused as asked: because");
            assertThat(answer).hasReason("refused as asked: because");
            assertThatThrownBy(() -> assertThat(answer).hasReason("refused as asked"))
                    .hasMessageContaining(
                            "expected a refusal with the reason \"refused as asked\" but got reason \"refused as asked: because\"");
            assertThatThrownBy(() -> assertThat(answer).hasReasonContaining("something else"))
                    .hasMessageContaining("reason \"refused as asked: because\"");
            assertThatThrownBy(() -> assertThat(worker.call(ascii("echo x"))).isRefusedWith(UromStatus.SUCCESS))
                    .hasMessageContaining("which the plugin made");
        }
    }

    @Test
    void theWaitsSayWhoMadeEachAnswerAndWhyItWasRefused() {
        try (TestWorker worker = scripted()) {
            WorkerAnswer refused = worker.call(ascii("refuse because"));
            WorkerAnswer unknownId = worker.awaitAnswer(worker.send(new WorkerCommand(5, 1L << 9, 3, ascii("echo e"))));
            WorkerAnswer echoed = worker.call(ascii("echo e"));

            assertThat(refused.origin()).isEqualTo(WorkerAnswer.Origin.PLUGIN_REFUSAL);
            assertThat(refused.refusalReason()).hasValue("refused as asked: because");
            assertThat(unknownId.origin()).isEqualTo(WorkerAnswer.Origin.WORKER);
            assertThat(unknownId.refusalReason()).isEmpty();
            assertThat(echoed.origin()).isEqualTo(WorkerAnswer.Origin.PLUGIN);
            assertThat(echoed.refusalReason()).isEmpty();
        }
    }

    @Test
    void aBareNotificationIsNeverTakenForARefusal() {
        try (TestWorker worker = scripted()) {
            WorkerNotification bare = worker.call(ascii("refuse because")).notification();

            assertThat(bare).hasStatus(UromStatus.INVALID_VALUE).hasEmptyPayload();
            assertThatThrownBy(() -> assertThat(bare).isRefusedWith(UromStatus.INVALID_VALUE))
                    .hasMessageContaining("a bare notification that does not say who made it");
            assertThatThrownBy(() -> assertThat(bare).hasReasonContaining("because"))
                    .hasMessageContaining("no reason in {dest")
                    .hasMessageContaining(", a bare notification");
        }
    }

    @Test
    void packOfAnAnswerGivesWhatTheHostReceivesThePluginsPackingOrTheWorkers() {
        try (TestWorker worker = PluginTestKit.plugin(FixedSizePacking::new).open()) {
            WorkerAnswer echoed = worker.call(ascii("echo abc"));
            WorkerAnswer refused = worker.call(ascii("refuse because"));

            assertThat(worker.pack(echoed)).hasSize(FixedSizePacking.PACKED_BYTES);
            assertThat(worker.pack(refused))
                    .as("the worker packs its own answers")
                    .isEqualTo(refused.notification().pack())
                    .hasSize(WorkerNotification.HEADER_BYTES);
            assertThat(worker.pack(refused.notification()))
                    .as("the plugin's notif_pack, asked directly")
                    .hasSize(FixedSizePacking.PACKED_BYTES);
        }
    }

    @Test
    void aCommandOverTheMaximumMessageSizeIsAnsweredTooBigByTheWorker() {
        try (TestWorker worker = PluginTestKit.plugin(ScriptedPlugin::new)
                .maxMessageSize(WorkerCommand.HEADER_BYTES + 8)
                .open()) {
            assertThat(worker.call(ascii("echo 12"))).isSuccessful();
            assertThat(worker.call(ascii("echo 123"))).isSuccessful();
            assertThat(worker.call(ascii("echo 1234"))).isRefusedWith(UromStatus.TOO_BIG);
        }
    }

    @Test
    void aCommandSentAsItIsKeepsItsHeaderAndAnotherPluginsIdIsNotFound() {
        try (TestWorker worker = scripted()) {
            WorkerCommand own = worker.send(
                    new WorkerCommand(-1, PluginTestKit.DEFAULT_PLUGIN_ID, Long.MIN_VALUE, ascii("echo e")));
            WorkerCommand other = worker.send(new WorkerCommand(5, 1L << 9, 3, ascii("echo e")));

            assertThat(worker.awaitAnswer(own)).answers(own).isSuccessful();
            assertThat(worker.awaitAnswer(other)).answers(other).isRefusedWith(UromStatus.NOT_FOUND);
        }
    }

    @Test
    void aWaitFailsAfterItsTimeLimitListingWhatCameInstead() {
        try (TestWorker worker =
                PluginTestKit.plugin(ScriptedPlugin::new).timeout(SHORT).open()) {
            worker.send(ascii("echo other"));
            WorkerCommand silent = worker.send(ascii("silent"));

            assertThatThrownBy(() -> worker.awaitAnswer(silent))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining(
                            "worker 0 (plugin 'ScriptedPlugin'): no answer to {dest 1, type 0x1, context 2")
                    .hasMessageContaining("within PT0.2S")
                    .hasMessageContaining(
                            "unclaimed notifications: [{dest 1, type 0x1, context 1, SUCCESS, payload 5 bytes 6f74686572}]");
            assertThatThrownBy(() -> worker.awaitNotifications(2))
                    .hasMessageContaining("1 of 2 notifications within PT0.2S");
        }
    }

    @Test
    void notificationsWaitedPastStayUnclaimedInOrder() {
        try (TestWorker worker = scripted()) {
            WorkerCommand first = worker.send(ascii("echo 1"));
            WorkerCommand second = worker.send(ascii("twice 2"));
            WorkerCommand third = worker.send(ascii("echo 3"));

            assertThat(worker.awaitAnswer(third)).hasPayload(ascii("3"));
            assertThat(worker.unclaimed()).hasSize(3);
            List<WorkerNotification> rest = worker.awaitNotifications(3);
            assertThatNotifications(rest).areAllSuccessful().answerInOrder(first, second, second);
            assertThatThrownBy(() -> assertThatNotifications(rest).answerInOrder(second, first, second))
                    .hasMessageContaining("answer number 0 should answer {dest 1, type 0x1, context 2");
            assertThatThrownBy(() -> assertThatNotifications(rest).hasStatuses(UromStatus.SUCCESS))
                    .hasMessageContaining("expected statuses [SUCCESS] but got [SUCCESS, SUCCESS, SUCCESS]");
            worker.assertNoNotificationAfter(10);
        }
    }

    @Test
    void quietAfterProgressFailsWhenAnythingCame() {
        try (TestWorker worker = scripted()) {
            worker.send(ascii("silent"));
            worker.assertNoNotificationAfter(5);
            worker.send(ascii("echo late"));

            assertThatThrownBy(() -> worker.assertNoNotificationAfter(5))
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining(
                            "expected no notification after 5 rounds of progress, but got [{dest 1, type 0x1, context 2");
        }
    }

    @Test
    void pluginsInADomainReachEachOthersAddresses() {
        try (TestDomain domain = PluginTestKit.plugin(ScriptedPlugin::new).openDomain(3)) {
            assertThat(domain.size()).isEqualTo(3);
            assertThat(domain.worker(0).call(ascii("peer 2")))
                    .isSuccessful()
                    .hasPayload(domain.worker(2).address());
            assertThat(domain.worker(2).call(ascii("peer 0"))).hasPayload(ascii("worker 1"));
            assertThat(domain.worker(1).call(ascii("peer 3")))
                    .isRefusedWith(UromStatus.NOT_FOUND)
                    .hasReasonContaining("domain id 3 is not in the test domain of 3 workers");
        }
    }

    @Test
    void progressAloneLeavesThePeersIdleAndAClosedPeerIsNotFound() {
        try (TestDomain domain = PluginTestKit.plugin(ScriptedPlugin::new).openDomain(2)) {
            domain.worker(1).send(ascii("echo b"));
            domain.worker(0).progressAlone();
            domain.worker(0).progressAlone();

            assertThat(domain.worker(1).unclaimed()).isEmpty();
            assertThat(domain.worker(1).progressAlone()).isEqualTo(1);
            domain.worker(1).close();
            assertThat(domain.worker(0).call(ascii("peer 1")))
                    .isRefusedWith(UromStatus.NOT_FOUND)
                    .hasReason("the worker with domain id 1 of the test domain is closed");
        }
    }

    @Test
    void aConditionIsAwaitedWhileTheDomainProgresses() {
        try (TestDomain domain =
                PluginTestKit.plugin(ScriptedPlugin::new).timeout(SHORT).openDomain(2)) {
            TestWorker a = domain.worker(0);
            TestWorker b = domain.worker(1);
            b.send(ascii("echo from b"));

            a.awaitCondition(() -> !b.unclaimed().isEmpty(), "b's answer came");
            assertThatThrownBy(() -> a.awaitCondition(() -> false, "never"))
                    .hasMessageStartingWith("worker 0 (plugin 'ScriptedPlugin'): not within PT0.2S: never");
            assertThatThrownBy(() -> a.awaitCondition(
                            () -> {
                                throw new dev.urom.spi.UromException(UromStatus.BAD_STATE, "gone");
                            },
                            "a failing state"))
                    .hasMessage(
                            "worker 0 (plugin 'ScriptedPlugin'): while waiting until a failing state: BAD_STATE: gone");
        }
    }

    @Test
    void aLoneWorkerIsInADomainOfItself() {
        try (TestWorker worker = scripted()) {
            assertThat(worker.call(ascii("peer 0"))).hasPayload(ascii("worker 1"));
            assertThat(worker.call(ascii("peer 1"))).isRefusedWith(UromStatus.NOT_FOUND);
        }
    }

    @Test
    void aNativePluginIsLoadedFromItsFile(@TempDir Path dir) {
        Path so = dev.urom.nativebridge.testkit.NativeFixtures.compileMinimalPlugin(dir, "echo_plugin.so", 3);
        try (TestWorker worker =
                PluginTestKit.plugin(so).pluginId(1L << 6).destId(9).open()) {
            WorkerCommand command = worker.send(0xfeedL, new byte[] {1, 2, 3});
            WorkerAnswer answer = worker.awaitAnswer(command);

            assertThat(answer).answers(command).isSuccessful().hasPayloadHex("010203");
            assertThat(worker.pluginName()).isEqualTo("echo_plugin");
            assertThat(worker.pack(answer)).hasSize(WorkerNotification.HEADER_BYTES + 3);
        }
    }

    @Test
    void theWorkersOfADomainEachLoadTheirOwnCopyOfANativePlugin(@TempDir Path dir) throws Exception {
        // The fixture keeps its answers in a global list: one library shared by both workers would hand worker 0's
        // answers to worker 1.
        Path so = dev.urom.nativebridge.testkit.NativeFixtures.compileMinimalPlugin(dir, "echo_plugin.so", 3);
        Path copies;
        try (TestDomain domain = PluginTestKit.plugin(so).openDomain(2)) {
            copies = domain.copiesFolder().orElseThrow();
            assertThat(Files.list(copies)).hasSize(2);
            WorkerCommand command = domain.worker(0).send(new byte[] {7});
            domain.worker(1).progress();
            domain.worker(1).progress();

            assertThat(domain.worker(1).unclaimed()).isEmpty();
            assertThat(domain.worker(0).awaitAnswer(command)).hasPayloadHex("07");
        }
        assertThat(copies).doesNotExist();
    }

    @Test
    void aPluginJarIsLoadedThroughItsManifest(@TempDir Path dir) throws Exception {
        Path jar = TestJars.pluginJar(dir.resolve("worker_scripted.jar"), ScriptedPlugin.class);
        try (TestWorker worker = PluginTestKit.plugin(jar).open()) {
            assertThat(worker.call(ascii("echo from a jar"))).isSuccessful().hasPayload(ascii("from a jar"));
            assertThat(worker.pluginName()).isEqualTo("worker_scripted");
        }
    }

    @Test
    void aMissingOrWronglyNamedFileFailsNamingIt(@TempDir Path dir) {
        assertThatThrownBy(() -> PluginTestKit.plugin(dir.resolve("absent.so")).open())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("absent.so does not exist or is not a regular file");
        assertThatThrownBy(() -> PluginTestKit.plugin(dir.resolve("notes.txt")).open())
                .hasMessageContaining("notes.txt is neither a .so nor a plugin .jar");
    }

    @Test
    void aFileThatIsNoPluginFailsWithTheLoadersReason(@TempDir Path dir) throws Exception {
        Path fake = Files.writeString(dir.resolve("fake.so"), "not an ELF file");

        assertThatThrownBy(() -> PluginTestKit.plugin(fake).open())
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("the test kit cannot open plugin 'fake'")
                .hasMessageContaining("cannot be loaded");
    }

    @Test
    void onlyTheOpeningThreadDrivesAWorker() throws Exception {
        try (TestWorker worker = scripted()) {
            CompletableFuture<Throwable> thrown = new CompletableFuture<>();
            Thread elsewhere = new Thread(
                    () -> {
                        try {
                            worker.send(ascii("echo x"));
                            thrown.complete(null);
                        } catch (Throwable t) {
                            thrown.complete(t);
                        }
                    },
                    "elsewhere");
            elsewhere.start();

            assertThat(thrown.get(30, TimeUnit.SECONDS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("the test kit's workers are driven by thread '"
                            + Thread.currentThread().getName()
                            + "', which opened them; called from thread 'elsewhere'");
            elsewhere.join();
        }
    }

    @Test
    void aClosedWorkerRefusesToBeUsed() {
        TestWorker worker = scripted();
        worker.close();
        worker.close();

        assertThatThrownBy(() -> worker.send(ascii("echo x")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("worker 0 (plugin 'ScriptedPlugin') is closed");
    }

    @Test
    void settingsOutOfRangeAreRefused() {
        assertThatThrownBy(() -> PluginTestKit.plugin(ScriptedPlugin::new).pluginId(3))
                .hasMessage("plugin id 0x3 is not a single bit");
        assertThatThrownBy(() -> PluginTestKit.plugin(ScriptedPlugin::new).timeout(Duration.ZERO))
                .hasMessage("timeout PT0S is not positive");
        assertThatThrownBy(() -> PluginTestKit.plugin(ScriptedPlugin::new).maxMessageSize(10))
                .hasMessageContaining("smaller than a command header");
        assertThatThrownBy(() -> PluginTestKit.plugin(ScriptedPlugin::new).openDomain(0))
                .hasMessageContaining("needs at least one");
    }

    /** The scripted plugin with a packing of a fixed size whatever the payload, as some DOCA plugins pack. */
    private static final class FixedSizePacking implements PluginIface {
        static final int PACKED_BYTES = WorkerNotification.HEADER_BYTES + 16;
        private final ScriptedPlugin scripted = new ScriptedPlugin();

        @Override
        public void open(WorkerContext context) {
            scripted.open(context);
        }

        @Override
        public void close() {
            scripted.close();
        }

        @Override
        public byte[] address() {
            return scripted.address();
        }

        @Override
        public void workerCommand(WorkerCommand command) throws UromException {
            scripted.workerCommand(command);
        }

        @Override
        public void progress(List<? super WorkerNotification> notifications) {
            scripted.progress(notifications);
        }

        @Override
        public byte[] packNotification(WorkerNotification notification) {
            return Arrays.copyOf(notification.pack(), PACKED_BYTES);
        }
    }
}
