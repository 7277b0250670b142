// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.HostProcess;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WorkerHostTest {
    private static final long WORKER_ID = 77;
    private static final long A = 1L;
    private static final long B = 1L << 5;
    private static final long C = 1L << 63;
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final Map<Path, PluginIface> plugins = new HashMap<>();
    private final EchoPlugin pluginA = register("/plugins/a.jar", new EchoPlugin("a"));
    private final EchoPlugin pluginB = register("/plugins/b.jar", new EchoPlugin("b"));
    private final EchoPlugin pluginC = register("/plugins/c.jar", new EchoPlugin("c"));
    private final PluginLoader loader = path -> {
        PluginIface plugin = plugins.get(path);
        if (plugin == null) {
            throw new UromException(UromStatus.NOT_FOUND, "no plugin file " + path);
        }
        return plugin;
    };
    private WorkerHost host;

    @AfterEach
    void closeHost() {
        if (host != null) {
            host.close();
        }
    }

    @Test
    void opensEachPluginWithItsOwnContext() {
        DomainLookups domain = DomainLookups.none();
        host = open(WorkerHostConfig.defaults().withDomain(domain), "/plugins/a.jar:1", "/plugins/b.jar:32");

        assertThat(pluginA.opens).isEqualTo(1);
        assertThat(pluginA.context.workerId()).isEqualTo(WORKER_ID);
        assertThat(pluginA.context.pluginId()).isEqualTo(A);
        assertThat(pluginB.context.pluginId()).isEqualTo(B);
        assertThat(pluginB.context.domain()).isSameAs(domain);
        assertThat(host.pluginIds()).containsExactly(A, B);
        assertThat(host.plugin(A)).containsSame(pluginA);
        assertThat(host.plugin(C)).isEmpty();
        assertThat(host.failures()).isEmpty();
    }

    @Test
    void eachPluginAsksTheConfigsHostProcessesAndByDefaultLearnsNone() throws UromException {
        List<Long> asked = new ArrayList<>();
        host = open(
                WorkerHostConfig.defaults().withHostProcesses(destId -> {
                    asked.add(destId);
                    if (destId != 3) {
                        throw new UromException(UromStatus.NOT_FOUND, "no connection " + destId);
                    }
                    return new HostProcess(1234, 56);
                }),
                "/plugins/a.jar:1",
                "/plugins/b.jar:32");

        assertThat(pluginA.context.hostProcess(3)).isEqualTo(new HostProcess(1234, 56));
        assertThatThrownBy(() -> pluginB.context.hostProcess(4))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND));
        assertThat(asked).containsExactly(3L, 4L);

        host.close();
        host = open(WorkerHostConfig.defaults(), "/plugins/c.jar:1");
        assertThatThrownBy(() -> pluginC.context.hostProcess(3))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED));
    }

    @Test
    void hostProcessesThatAnswerNullAreAnUnexpectedFailure() {
        host = open(WorkerHostConfig.defaults().withHostProcesses(destId -> null), "/plugins/a.jar:1");

        assertThatThrownBy(() -> pluginA.context.hostProcess(3))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.UNEXPECTED));
    }

    @Test
    void dispatchesEachCommandToThePluginNamedByItsType() {
        host = openAll();

        host.submit(command(B, 1, "one"));
        host.submit(command(A, 2, "two"));
        host.submit(command(C, 3, "three"));
        host.submit(command(B, 4, "four"));

        assertThat(drain())
                .extracting(WorkerHostTest::summary)
                .containsExactly("1/SUCCESS/a:two", "1/SUCCESS/b:one", "1/SUCCESS/b:four", "1/SUCCESS/c:three");
        assertThat(pluginA.pending).isEmpty();
    }

    @Test
    void anUnknownIdIsAnsweredWithNotFound() {
        host = openAll();

        WorkerAnswer answer = host.call(new WorkerCommand(9, 1L << 10, 42, bytes(3)), TIMEOUT);

        assertThat(answer.status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(answer.destId()).isEqualTo(9);
        assertThat(answer.type()).isEqualTo(1L << 10);
        assertThat(answer.uromContext()).isEqualTo(42);
        assertThat(answer.payload()).isEmpty();
    }

    @Test
    void aCommandOfExactlyTheMaximumSizeIsAcceptedAndOneByteMoreIsTooBig() {
        host = openAll();
        int maxPayload = WorkerHostConfig.DEFAULT_MAX_MESSAGE_SIZE - WorkerCommand.HEADER_BYTES;
        WorkerCommand largest = new WorkerCommand(1, A, 10, bytes(maxPayload));
        WorkerCommand tooLarge = new WorkerCommand(1, A, 11, bytes(maxPayload + 1));
        assertThat(largest.sizeWithHeader()).isEqualTo(4096);
        assertThat(tooLarge.sizeWithHeader()).isEqualTo(4097);

        assertThat(host.call(largest, TIMEOUT).status()).isEqualTo(UromStatus.SUCCESS);
        WorkerAnswer refused = host.call(tooLarge, TIMEOUT);
        assertThat(refused.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(refused.uromContext()).isEqualTo(11);
        assertThat(pluginA.pending).isEmpty();
        assertThat(host.call(command(A, 12, "after"), TIMEOUT).status()).isEqualTo(UromStatus.SUCCESS);
    }

    @Test
    void theMaximumMessageSizeComesFromTheConfig() {
        host = open(WorkerHostConfig.defaults().withMaxMessageSize(WorkerCommand.HEADER_BYTES + 4), "/plugins/a.jar:1");

        assertThat(host.call(new WorkerCommand(1, A, 1, bytes(4)), TIMEOUT).status())
                .isEqualTo(UromStatus.SUCCESS);
        assertThat(host.call(new WorkerCommand(1, A, 2, bytes(5)), TIMEOUT).status())
                .isEqualTo(UromStatus.TOO_BIG);
    }

    @Test
    void aUromExceptionFromAPluginBecomesItsStatus() {
        host = openAll();
        pluginB.failCommand = new UromException(UromStatus.INVALID_VALUE, "bad command");

        assertThat(host.call(command(B, 5, "x"), TIMEOUT).status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(host.call(command(A, 6, "y"), TIMEOUT).status()).isEqualTo(UromStatus.SUCCESS);
    }

    @Test
    void theWorkersOwnAnswersAreMarkedAndCarryNoPayloadOrTheRefusalsMessageAndAPluginsAreNot() {
        host = openAll();
        pluginB.failCommand = new UromException(UromStatus.INVALID_VALUE, "bad command");

        WorkerAnswer refused = host.call(command(B, 5, "x"), TIMEOUT);
        WorkerAnswer unknown = host.call(new WorkerCommand(3, 1L << 40, 6, bytes(1)), TIMEOUT);
        WorkerAnswer answered = host.call(command(A, 7, "y"), TIMEOUT);
        WorkerAnswer copy = WorkerAnswer.fromPlugin(new WorkerNotification(
                refused.destId(), refused.type(), refused.uromContext(), refused.status(), new byte[0]));
        WorkerAnswer sameBytes = WorkerAnswer.fromPlugin(new WorkerNotification(
                refused.destId(),
                refused.type(),
                refused.uromContext(),
                refused.status(),
                refused.payload().clone()));

        assertThat(List.of(refused, unknown))
                .allSatisfy(n -> assertThat(n.madeByWorker()).as("%s", n).isTrue());
        assertThat(unknown.payload()).isEmpty();
        assertThat(refused.payload()).isEmpty();
        assertThat(refused.refusalReason()).hasValue("bad command");
        assertThat(unknown.refusalReason()).isEmpty();
        assertThat(answered.madeByWorker()).isFalse();
        assertThat(copy.madeByWorker())
                .as("a plugin's notification with no payload")
                .isFalse();
        assertThat(sameBytes.madeByWorker())
                .as("a plugin's notification with the same bytes")
                .isFalse();
        assertThat(WorkerAnswer.fromPlugin(WorkerNotification.failure(command(A, 8, "z"), UromStatus.AGAIN))
                        .madeByWorker())
                .isFalse();
    }

    @Test
    void eachAnswerSaysWhoMadeItAndOnlyAPluginsRefusalHasAReason() {
        pluginA.failOpen = new UromException(UromStatus.NO_MEMORY, "no room");
        pluginB.failCommand = new UromException(UromStatus.INVALID_VALUE, "bad command");
        host = open(
                WorkerHostConfig.defaults().withMaxMessageSize(64),
                "/plugins/a.jar:1",
                "/plugins/b.jar:32",
                "/plugins/c.jar:0x8000000000000000");

        WorkerAnswer success = host.call(command(C, 1, "x"), TIMEOUT);
        WorkerAnswer pluginRefusal = host.call(command(B, 2, "x"), TIMEOUT);
        WorkerAnswer unknownId = host.call(command(4L, 3, "x"), TIMEOUT);
        WorkerAnswer tooBig = host.call(new WorkerCommand(1, C, 4, bytes(64)), TIMEOUT);
        WorkerAnswer failedPlugin = host.call(command(A, 5, "x"), TIMEOUT);

        assertThat(success.origin()).isEqualTo(WorkerAnswer.Origin.PLUGIN);
        assertThat(success.refusalReason()).isEmpty();
        assertThat(pluginRefusal.origin()).isEqualTo(WorkerAnswer.Origin.PLUGIN_REFUSAL);
        assertThat(pluginRefusal.refusalReason()).hasValue("bad command");
        assertThat(List.of(unknownId, tooBig, failedPlugin))
                .extracting(WorkerAnswer::status)
                .containsExactly(UromStatus.NOT_FOUND, UromStatus.TOO_BIG, UromStatus.NO_MEMORY);
        assertThat(List.of(unknownId, tooBig, failedPlugin)).allSatisfy(answer -> {
            assertThat(answer.origin()).as("%s", answer).isEqualTo(WorkerAnswer.Origin.WORKER);
            assertThat(answer.refusalReason()).as("%s", answer).isEmpty();
        });
    }

    @Test
    void anythingElseAPluginThrowsOnACommandIsUnexpectedWithTheExceptionAsTheMessage() {
        host = openAll();
        pluginB.failCommand = new IllegalStateException("the plugin lost its state");

        WorkerAnswer refused = host.call(command(B, 5, "x"), TIMEOUT);

        assertThat(refused.status()).isEqualTo(UromStatus.UNEXPECTED);
        assertThat(refused.refusalReason()).hasValue("java.lang.IllegalStateException: the plugin lost its state");
    }

    @Test
    void aLongMultiLineRefusalMessageIsCutToOneLineInTheAnswer() {
        host = openAll();
        pluginB.failCommand =
                new UromException(UromStatus.INVALID_VALUE, "first line\nsecond line\r\n" + "é".repeat(5000));

        WorkerAnswer refused = host.call(command(B, 5, "x"), TIMEOUT);

        String message = refused.refusalReason().orElseThrow();
        assertThat(message.getBytes(StandardCharsets.UTF_8).length).isBetween(100, WorkerHost.MAX_MESSAGE_BYTES);
        assertThat(message)
                .startsWith("first line second line  éé")
                .doesNotContain("\n")
                .doesNotContain("\r")
                .doesNotContain("\uFFFD");
    }

    @Test
    void aRefusalMessageNeverMakesTheAnswerLargerThanTheMaximumMessageSize() {
        host = open(
                WorkerHostConfig.defaults().withMaxMessageSize(WorkerNotification.HEADER_BYTES + 4),
                "/plugins/a.jar:1");
        pluginA.failCommand = new UromException(UromStatus.INVALID_VALUE, "a message longer than four bytes");

        WorkerAnswer refused = host.call(new WorkerCommand(1, A, 1, bytes(1)), TIMEOUT);

        assertThat(refused.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(refused.payload()).isEmpty();
        assertThat(refused.refusalReason())
                .as("what a NOTIFY of the maximum size holds")
                .hasValue("a me");
        assertThat(refused.madeByWorker()).isTrue();
    }

    @Test
    void aPluginThatQueuesAnAnswerAndRefusesTheCommandGivesOneAnswerTheWorkers() {
        host = openAll();
        pluginB.queueAndFailCommand = new UromException(UromStatus.NOT_FOUND, "no such peer");
        host.submit(command(B, 5, "x"));
        pluginB.queueAndFailCommand = null;
        host.submit(command(B, 6, "y"));
        host.submit(new WorkerCommand(2, B, 5, "same context, other connection".getBytes()));

        List<WorkerAnswer> out = new ArrayList<>();
        host.progress(out::add);
        host.progress(out::add);

        assertThat(out).extracting(WorkerAnswer::uromContext).containsExactly(5L, 6L, 5L);
        WorkerAnswer first = out.get(0);
        assertThat(first.status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(first.madeByWorker())
                .as("the worker's answer, not the plugin's")
                .isTrue();
        assertThat(out.get(1).payload()).asString().isEqualTo("b:y");
        assertThat(out.get(2).destId()).isEqualTo(2);
    }

    @Test
    void aLaterAnswerWithTheContextOfARefusedCommandIsDelivered() {
        host = openAll();
        pluginB.failCommand = new UromException(UromStatus.INVALID_VALUE, "bad command");
        assertThat(host.call(command(B, 5, "x"), TIMEOUT).status()).isEqualTo(UromStatus.INVALID_VALUE);
        pluginB.failCommand = null;

        WorkerAnswer again = host.call(command(B, 5, "x again"), TIMEOUT);

        assertThat(again.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(again.payload()).asString().isEqualTo("b:x again");
    }

    @Test
    void anyOtherThrowableFromAPluginBecomesUnexpectedAndTheHostGoesOn() {
        host = openAll();
        List<Throwable> failures = List.of(
                new IllegalStateException("broken"),
                new StackOverflowError(),
                new NoClassDefFoundError("gone/Klass"),
                new AssertionError());
        long context = 100;
        for (Throwable failure : failures) {
            pluginC.failCommand = failure;
            WorkerAnswer answer = host.call(command(C, context, "x"), TIMEOUT);
            assertThat(answer.status()).as("answer to %s", failure).isEqualTo(UromStatus.UNEXPECTED);
            assertThat(answer.uromContext()).isEqualTo(context++);
        }
        pluginC.failCommand = null;
        assertThat(host.call(command(C, context, "ok"), TIMEOUT).payload())
                .asString()
                .isEqualTo("c:ok");
    }

    @Test
    void anOutOfMemoryErrorIsNotSwallowed() {
        host = openAll();
        pluginA.failCommand = new OutOfMemoryError("test");

        assertThatThrownBy(() -> host.submit(command(A, 1, "x"))).isInstanceOf(OutOfMemoryError.class);
    }

    @Test
    void pluginsThatFailToLoadOrOpenAreRecordedAndAnswerWithTheirStatus() {
        pluginA.failOpen = new UromException(UromStatus.NO_MEMORY, "no room");
        pluginB.failOpen = new IllegalArgumentException("boom");
        register("/plugins/d.jar", new EchoPlugin("d")).failOpen = new ExceptionInInitializerError("static init");

        host = open(
                WorkerHostConfig.defaults(),
                "/plugins/a.jar:1",
                "/plugins/b.jar:32",
                "/plugins/missing.jar:2",
                "/plugins/c.jar:0x8000000000000000",
                "/plugins/d.jar:4");

        assertThat(host.failures()).containsOnlyKeys(A, B, 2L, 4L);
        assertThat(host.failures().get(A).status()).isEqualTo(UromStatus.NO_MEMORY);
        assertThat(host.failures().get(A).toString())
                .isEqualTo("plugin 'a' (/plugins/a.jar:1): NO_MEMORY: open failed: no room");
        assertThat(host.failures().get(B).status()).isEqualTo(UromStatus.UNEXPECTED);
        assertThat(host.failures().get(B).reason()).contains("boom");
        assertThat(host.failures().get(2L).status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(host.failures().get(2L).reason())
                .contains("cannot be loaded")
                .contains("/plugins/missing.jar");
        assertThat(host.failures().get(4L).status()).isEqualTo(UromStatus.UNEXPECTED);
        assertThat(host.plugin(A)).isEmpty();

        assertThat(host.call(command(A, 1, "x"), TIMEOUT).status()).isEqualTo(UromStatus.NO_MEMORY);
        assertThat(host.call(command(B, 2, "x"), TIMEOUT).status()).isEqualTo(UromStatus.UNEXPECTED);
        assertThat(host.call(command(2L, 3, "x"), TIMEOUT).status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(host.call(command(C, 4, "x"), TIMEOUT).payload()).asString().isEqualTo("c:x");
        assertThat(host.pluginIds()).containsExactly(A, B, 2L, C, 4L);
    }

    @Test
    void errorNotificationsComeOutOfProgressBeforeThePluginsOutputInOrder() {
        host = openAll();

        host.submit(command(A, 1, "first"));
        host.submit(command(1L << 20, 2, "unknown"));
        host.submit(new WorkerCommand(1, B, 3, bytes(5000)));

        assertThat(drain())
                .extracting(WorkerNotification::uromContext, WorkerNotification::status)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(2L, UromStatus.NOT_FOUND),
                        org.assertj.core.groups.Tuple.tuple(3L, UromStatus.TOO_BIG),
                        org.assertj.core.groups.Tuple.tuple(1L, UromStatus.SUCCESS));
    }

    @Test
    void aPluginWhoseProgressThrowsIsSkippedForThatRoundOnly() {
        host = openAll();
        host.submit(command(A, 1, "a1"));
        host.submit(command(A, 2, "a2"));
        host.submit(command(B, 3, "b"));
        pluginA.failProgress = new RuntimeException("progress broke");

        List<WorkerNotification> first = drain();
        assertThat(first).extracting(WorkerNotification::uromContext).containsExactly(1L, 3L);

        pluginA.failProgress = null;
        assertThat(drain()).extracting(WorkerNotification::uromContext).containsExactly(2L);
    }

    @Test
    void anEmptyStatusFromProgressMeansNothingToReport() {
        host = openAll();
        pluginA.failProgress = new UromException(UromStatus.EMPTY, "nothing");
        host.submit(command(B, 1, "b"));

        assertThat(drain()).extracting(WorkerNotification::uromContext).containsExactly(1L);
    }

    @Test
    void callKeepsTheOtherNotificationsForTheNextProgress() {
        host = openAll();
        host.submit(command(A, 1, "early"));
        host.submit(command(C, 2, "other"));

        WorkerAnswer answer = host.call(command(B, 3, "wanted"), TIMEOUT);

        assertThat(answer.payload()).asString().isEqualTo("b:wanted");
        assertThat(drain()).extracting(WorkerNotification::uromContext).containsExactly(1L, 2L);
    }

    @Test
    void aSinkMaySubmitButNotProgressAgain() {
        host = openAll();
        host.submit(command(B, 1, "first"));
        List<Throwable> refused = new ArrayList<>();

        int delivered = host.progress(n -> {
            // A's progress already ran in this round: the answer comes in the next one.
            host.submit(command(A, n.uromContext() + 1, "follow-up"));
            try {
                host.progress(ignored -> {});
            } catch (IllegalStateException e) {
                refused.add(e);
            }
            try {
                host.call(command(C, 9, "nested"), TIMEOUT);
            } catch (IllegalStateException e) {
                refused.add(e);
            }
        });

        assertThat(delivered).isEqualTo(1);
        assertThat(refused).hasSize(2).allSatisfy(e -> assertThat(e).hasMessageContaining("within a progress sink"));
        assertThat(drain()).extracting(WorkerNotification::uromContext).containsExactly(2L);
    }

    @Test
    void callTimesOutWhenNoAnswerComes() {
        register("/plugins/silent.jar", new EchoPlugin("silent") {
            @Override
            public void progress(List<? super WorkerNotification> notifications) {}
        });
        host = open(WorkerHostConfig.defaults(), "/plugins/silent.jar:8");

        WorkerAnswer answer = host.call(command(8, 5, "x"), Duration.ofMillis(50));

        assertThat(answer.status()).isEqualTo(UromStatus.TIME_OUT);
        assertThat(answer.uromContext()).isEqualTo(5);
        assertThat(answer.type()).isEqualTo(8);
        assertThat(answer.origin()).isEqualTo(WorkerAnswer.Origin.WORKER);
    }

    @Test
    void closeClosesEveryOpenedPluginOnceEvenWhenOneThrows() {
        pluginC.failOpen = new UromException(UromStatus.INITIALIZATION, "cannot start");
        host = openAll();
        pluginA.failClose = new IllegalStateException("close broke");
        pluginB.failClose = new LinkageError("close linkage");

        host.close();
        host.close();

        assertThat(pluginA.closes).isEqualTo(1);
        assertThat(pluginB.closes).isEqualTo(1);
        assertThat(pluginC.closes)
                .as("a plugin whose open failed is not closed")
                .isZero();
        assertThatThrownBy(() -> host.submit(command(A, 1, "x")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("worker 77 host is closed");
        assertThatThrownBy(() -> host.progress(n -> {})).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void openRefusesSpecsThatRepeatAnIdOrAPathBeforeLoadingAny() {
        List<PluginSpec> specs = List.of(PluginSpec.parse("/plugins/a.jar:1"), PluginSpec.parse("/plugins/b.jar:1"));

        assertThatThrownBy(() -> WorkerHost.open(WORKER_ID, specs, loader, WorkerHostConfig.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "plugin item '/plugins/b.jar:1' is invalid: its id 0x1 is already given to '/plugins/a.jar:1'");
        assertThat(pluginA.opens)
                .as("nothing is opened when the specs are refused")
                .isZero();

        List<PluginSpec> samePath =
                List.of(PluginSpec.parse("/plugins/a.jar:1"), PluginSpec.parse("/plugins/../plugins/a.jar:2"));
        assertThatThrownBy(() -> WorkerHost.open(WORKER_ID, samePath, loader, WorkerHostConfig.defaults()))
                .hasMessage(
                        "plugin item '/plugins/../plugins/a.jar:2' is invalid: its path is already loaded by '/plugins/a.jar:1'");
    }

    private EchoPlugin register(String path, EchoPlugin plugin) {
        plugins.put(Path.of(path), plugin);
        return plugin;
    }

    private WorkerHost openAll() {
        return open(
                WorkerHostConfig.defaults(),
                "/plugins/a.jar:1",
                "/plugins/b.jar:0x20",
                "/plugins/c.jar:0x8000000000000000");
    }

    private WorkerHost open(WorkerHostConfig config, String... items) {
        return WorkerHost.open(WORKER_ID, PluginSpec.parseAll(List.of(items)), loader, config);
    }

    private List<WorkerNotification> drain() {
        List<WorkerNotification> out = new ArrayList<>();
        int count = host.progress(answer -> out.add(answer.notification()));
        assertThat(count).isEqualTo(out.size());
        return out;
    }

    private static WorkerCommand command(long pluginId, long context, String text) {
        return new WorkerCommand(1, pluginId, context, text.getBytes());
    }

    private static String summary(WorkerNotification n) {
        return n.destId() + "/" + n.status() + "/" + new String(n.payload());
    }

    private static byte[] bytes(int length) {
        return new byte[length];
    }
}
