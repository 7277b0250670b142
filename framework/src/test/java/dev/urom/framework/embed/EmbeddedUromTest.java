// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.embed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginKind;
import dev.urom.framework.embed.fixtures.ThreadNamePlugin;
import dev.urom.framework.javaplugin.PluginJarBuilder;
import dev.urom.framework.worker.RefusingNativePlugin;
import dev.urom.framework.worker.fixtures.ReversingPlugin;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.PluginInfo;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedding facade with real plugin files: {@code .so} files compiled here and probed in child
 * processes, PF4J jars loaded in their own class loaders.
 */
class EmbeddedUromTest {

    @TempDir
    static Path fixtureDir;

    static Path echoSo;
    static Path failingOpenSo;

    @TempDir
    Path work;

    Path dir;
    EmbeddedUrom urom;

    @BeforeAll
    static void compileFixtures() {
        echoSo = NativeFixtures.compileMinimalPlugin(fixtureDir, "echo.so", 3);
        failingOpenSo = NativeFixtures.compilePlugin(
                fixtureDir, "failing_open.so", RefusingNativePlugin.source(), "-DFAIL_OPEN");
    }

    /** {@code echo.so} (native, version 3, echoes the payload) and {@code reverse.jar} (Java, version 7, reverses it). */
    @BeforeEach
    void plugins() throws IOException {
        dir = Files.createDirectories(work.resolve("plugins"));
        Files.copy(echoSo, dir.resolve("echo.so"));
        PluginJarBuilder.validPlugin(dir.resolve("reverse.jar"), ReversingPlugin.class, "7");
    }

    @AfterEach
    void closeUrom() {
        if (urom != null) {
            urom.close();
        }
    }

    @Test
    void listsThePluginsWithIdsNamesVersionsAndKinds() throws UromException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();

        assertThat(urom.plugins())
                .containsExactly(
                        new DiscoveredPlugin(new PluginInfo(1, 3, "echo"), PluginKind.NATIVE, dir.resolve("echo.so")),
                        new DiscoveredPlugin(
                                new PluginInfo(2, 7, "reverse"), PluginKind.JAVA, dir.resolve("reverse.jar")));
        assertThat(urom.lastScan().rejected()).isEmpty();
        assertThat(urom.directories()).containsExactly(dir);
        assertThat(urom.plugin("reverse").id()).isEqualTo(2);
        assertThat(urom.plugin(1).name()).isEqualTo("echo");
    }

    @Test
    void aPluginPathOfSeveralDirectoriesIsScannedInOrderAndTheFirstOfANameWins() throws UromException, IOException {
        Path other = Files.createDirectories(work.resolve("other"));
        PluginJarBuilder.validPlugin(other.resolve("echo.jar"), ReversingPlugin.class, "9");
        PluginJarBuilder.validPlugin(other.resolve("another.jar"), ReversingPlugin.class, "4");

        urom = EmbeddedUrom.builder().pluginDirectories(List.of(other, dir)).build();

        assertThat(urom.plugins())
                .extracting(DiscoveredPlugin::name, DiscoveredPlugin::id, DiscoveredPlugin::kind)
                .containsExactly(
                        tuple("another", 1L, PluginKind.JAVA),
                        tuple("echo", 2L, PluginKind.JAVA),
                        tuple("reverse", 4L, PluginKind.JAVA));
        assertThat(urom.lastScan().rejected())
                .singleElement()
                .satisfies(r ->
                        assertThat(r.reason()).contains(dir.resolve("echo.so").toString(), "shadowed"));
    }

    @Test
    void idsAreTheSameForANewInstanceOverTheSameFilesAndKeptAcrossRescans() throws UromException, IOException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        List<DiscoveredPlugin> first = urom.plugins();
        try (EmbeddedUrom again = EmbeddedUrom.builder().pluginPath(dir + ";").build()) {
            assertThat(again.plugins()).isEqualTo(first);
        }

        Files.copy(echoSo, dir.resolve("a_first.so"));
        urom.rescan();

        assertThat(urom.plugin("echo")).isEqualTo(first.get(0));
        assertThat(urom.plugin("reverse")).isEqualTo(first.get(1));
        assertThat(urom.plugin("a_first").id()).isEqualTo(4);
    }

    @Test
    void theIdOfAPluginAnOpenWorkerHoldsIsNotGivenToAnother() throws UromException, IOException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        try (InProcessWorker worker = urom.openInProcess("echo")) {
            Files.delete(dir.resolve("echo.so"));
            urom.rescan();
            urom.rescan();
            Files.copy(echoSo, dir.resolve("newcomer.so"));
            urom.rescan();

            assertThat(urom.plugin("newcomer").id()).isEqualTo(4);
            assertThat(worker.call(1, bytes("still loaded")).payload())
                    .asString()
                    .isEqualTo("still loaded");
        }
        Files.copy(echoSo, dir.resolve("latecomer.so"));
        urom.rescan();
        urom.rescan();
        assertThat(urom.plugin("latecomer").id())
                .as("freed once the worker closed")
                .isEqualTo(1);
    }

    @Test
    void nativeAndJavaPluginsAnswerInOneInProcessWorker() throws UromException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        try (InProcessWorker worker = urom.openInProcess("echo", "reverse")) {
            assertThat(worker.plugins()).extracting(DiscoveredPlugin::name).containsExactly("echo", "reverse");

            WorkerNotification echoed = worker.call(1, bytes("hello native"));
            WorkerNotification reversed = worker.call(2, bytes("abc"));
            WorkerNotification refused = worker.call(2, new byte[0]);

            assertThat(echoed.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(echoed.payload()).asString().isEqualTo("hello native");
            assertThat(echoed.type()).isEqualTo(1);
            assertThat(echoed.destId()).isEqualTo(InProcessWorker.DEST_ID);
            assertThat(reversed.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(reversed.payload()).asString().isEqualTo("cba");
            assertThat(reversed.type()).isEqualTo(2);
            assertThat(refused.status())
                    .as("the plugin's refusal is the answer")
                    .isEqualTo(UromStatus.INVALID_VALUE);
            assertThat(worker.poll()).isEmpty();
        }
    }

    @Test
    void aCommandOverTheMaximumMessageSizeIsAnsweredTooBig() throws UromException {
        urom = EmbeddedUrom.builder()
                .pluginPath(dir.toString())
                .maxMessageSize(64)
                .build();
        try (InProcessWorker worker = urom.openInProcess("echo")) {
            assertThat(worker.call(1, new byte[40]).status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(worker.call(1, new byte[41]).status()).isEqualTo(UromStatus.TOO_BIG);
        }
    }

    @Test
    void callsFromManyThreadsAreEachAnsweredAndThePluginsRunOnTheWorkersThread() throws Exception {
        PluginJarBuilder.validPlugin(dir.resolve("thread.jar"), ThreadNamePlugin.class, "1");
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        long threadId = urom.plugin("thread").id();
        int threads = 4;
        int callsEach = 25;
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        try (InProcessWorker worker = urom.openInProcess("echo", "thread")) {
            List<Future<List<String>>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int caller = t;
                Callable<List<String>> calls = () -> {
                    List<String> answers = new ArrayList<>();
                    for (int i = 0; i < callsEach; i++) {
                        long plugin = i % 2 == 0 ? 1 : threadId;
                        answers.add(new String(
                                worker.call(plugin, bytes(caller + "/" + i)).payload(), StandardCharsets.UTF_8));
                    }
                    return answers;
                };
                results.add(callers.submit(calls));
            }
            for (int t = 0; t < threads; t++) {
                List<String> expected = new ArrayList<>();
                for (int i = 0; i < callsEach; i++) {
                    expected.add(t + "/" + i);
                }
                assertThat(results.get(t).get()).as("answers of caller %d", t).isEqualTo(expected);
            }

            List<WorkerNotification> second = worker.poll();
            assertThat(second)
                    .as("the thread plugin's second answers, kept for poll")
                    .hasSize(threads * (callsEach / 2));
            assertThat(second).allSatisfy(n -> {
                assertThat(n.type()).isEqualTo(threadId);
                assertThat(n.payload()).asString().isEqualTo("urom-embedded-worker-" + worker.workerId());
            });
            assertThat(worker.poll()).isEmpty();
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void closingClosesEveryPluginOnceAndTheWorkersItOpened() throws UromException, IOException {
        Path marks = work.resolve("marks.txt");
        NativeFixtures.compilePlugin(dir, "marking.so", RefusingNativePlugin.source(), "-DMARK_FILE=\"" + marks + "\"");
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();

        InProcessWorker closedByItself = urom.openInProcess("marking");
        closedByItself.close();
        assertThat(Files.readAllLines(marks)).containsExactly("closed");
        closedByItself.close();

        InProcessWorker closedByUrom = urom.openInProcess("marking", "reverse");
        urom.close();
        urom.close();
        assertThat(Files.readAllLines(marks)).containsExactly("closed", "closed");
        assertThatFails(() -> closedByUrom.call(2, bytes("x")), UromStatus.BAD_STATE, "in-process worker", "is closed");
    }

    @Test
    void aMissingDirectoryIsNotFoundNamingIt() throws IOException {
        Path missing = work.resolve("missing");
        assertThatFails(
                () -> EmbeddedUrom.builder().pluginPath(dir + ";" + missing).build(),
                UromStatus.NOT_FOUND,
                "plugin directory " + missing + " does not exist");

        Path file = Files.writeString(work.resolve("file"), "x");
        assertThatFails(
                () -> EmbeddedUrom.builder().pluginDirectories(List.of(file)).build(),
                UromStatus.INVALID_VALUE,
                file + " is not a directory");
        assertThatFails(
                () -> EmbeddedUrom.builder().pluginPath(" ; ").build(), UromStatus.INVALID_VALUE, "names no directory");
        assertThatFails(() -> EmbeddedUrom.builder().build(), UromStatus.INVALID_VALUE, "no plugin path given");
        assertThatFails(
                () -> EmbeddedUrom.builder().pluginPath(dir + ";a\0b").build(),
                UromStatus.INVALID_VALUE,
                "not a valid path");
    }

    @Test
    void anUnknownPluginIsNotFoundNamingItAndThePath() throws UromException, IOException {
        Files.writeString(dir.resolve("broken.jar"), "not a zip");
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();

        assertThatFails(
                () -> urom.openInProcess("echo", "nope"),
                UromStatus.NOT_FOUND,
                "no plugin named 'nope' in plugin path " + dir,
                "(found: echo, reverse)");
        assertThatFails(() -> urom.plugin(8), UromStatus.NOT_FOUND, "no plugin with id 0x8 in plugin path " + dir);
        assertThatFails(
                () -> urom.openInProcess("broken"),
                UromStatus.NOT_FOUND,
                "plugin 'broken' was rejected: ",
                dir.resolve("broken.jar").toString());
    }

    @Test
    void aSelectionMustBeNonEmptyDistinctAndOfTheLastScan() throws UromException, IOException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        DiscoveredPlugin echo = urom.plugin("echo");

        assertThatFails(() -> urom.openInProcess(), UromStatus.INVALID_VALUE, "no plugin chosen");
        assertThatFails(() -> urom.openInProcess("echo", "echo"), UromStatus.INVALID_VALUE, "'echo' is chosen twice");

        Files.setLastModifiedTime(dir.resolve("echo.so"), FileTime.fromMillis(1_000_000));
        urom.rescan();
        assertThatFails(
                () -> urom.openInProcess(List.of(echo)),
                UromStatus.NOT_FOUND,
                "plugin 'echo' (id 0x1, " + dir.resolve("echo.so") + ") is not in the last scan");
        try (InProcessWorker worker = urom.openInProcess(List.of(urom.plugin("echo")))) {
            assertThat(worker.call(urom.plugin("echo").id(), bytes("changed")).payload())
                    .asString()
                    .isEqualTo("changed");
        }
    }

    @Test
    void aCommandToAPluginNotOpenedInTheWorkerIsNotFound() throws UromException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        try (InProcessWorker worker = urom.openInProcess("echo")) {
            assertThatFails(
                    () -> worker.call(2, bytes("x")),
                    UromStatus.NOT_FOUND,
                    "plugin id 0x2 is not open in in-process worker " + worker.workerId(),
                    "(it holds 'echo' 0x1)");
            assertThat(worker.call(1, bytes("goes on")).payload()).asString().isEqualTo("goes on");
        }
    }

    @Test
    void aPluginThatCannotBeOpenedFailsTheWholeWorkerWithItsStatus() throws UromException, IOException {
        Files.copy(failingOpenSo, dir.resolve("failing_open.so"));
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();

        assertThatFails(
                () -> urom.openInProcess("echo", "failing_open"),
                UromStatus.NO_MEMORY,
                "in-process worker 1 cannot open plugin 'failing_open'",
                dir.resolve("failing_open.so").toString(),
                "open failed");

        try (InProcessWorker worker = urom.openInProcess("echo")) {
            assertThat(worker.workerId()).isEqualTo(2);
            assertThat(worker.call(1, bytes("after")).payload()).asString().isEqualTo("after");
        }
    }

    @Test
    void useAfterCloseIsBadState() throws UromException {
        urom = EmbeddedUrom.builder().pluginPath(dir.toString()).build();
        InProcessWorker worker = urom.openInProcess("echo");
        worker.close();
        assertThatFails(
                () -> worker.call(1, bytes("x")), UromStatus.BAD_STATE, "in-process worker 1 ('echo' 0x1) is closed");
        assertThatFails(worker::poll, UromStatus.BAD_STATE, "is closed");

        urom.close();
        assertThatFails(
                () -> urom.openInProcess("echo"),
                UromStatus.BAD_STATE,
                "the embedded urom of plugin path " + dir + " is closed");
        assertThatFails(urom::rescan, UromStatus.BAD_STATE, "is closed");
        assertThat(urom.plugins()).as("the last scan is still there").hasSize(2);
    }

    private static void assertThatFails(ThrowingCallable call, UromStatus status, String... messageParts) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(status))
                .hasMessageContainingAll(messageParts)
                .message()
                .doesNotContain("\n");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
