// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import static dev.urom.testkit.PluginAssertions.assertThat;
import static dev.urom.testkit.PluginAssertions.assertThatThrownBy;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.nativebridge.HostProcessTable;
import dev.urom.nativebridge.testkit.HostProcessFixture;
import dev.urom.nativebridge.testkit.HostProcessFixture.Answer;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.HostProcess;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin's host in the test kits: the test's own process by default, another process or none
 * when the test says so, for a Java plugin ({@code WorkerContext.hostProcess}) and a native one
 * ({@code urom_worker_host_process}, through the Java kit and through the C kit's header); and no
 * pidfd left behind once the worker is closed.
 */
class HostProcessTestKitTest {
    private static final int SELF_PID = (int) ProcessHandle.current().pid();

    @TempDir
    static Path dir;

    private static Path fixture;

    private Process child;

    @BeforeAll
    static void build() {
        fixture = HostProcessFixture.compile(dir, "host_process.so");
    }

    @AfterEach
    void stopChild() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private Process startChild() throws IOException {
        child = new ProcessBuilder("cat")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        return child;
    }

    /** Answers a command with what its context says of the command's host: the status code and the pid, two little-endian int32. */
    static final class HostAskingPlugin implements PluginIface {
        private final List<WorkerNotification> done = new ArrayList<>();
        private WorkerContext context;

        @Override
        public void open(WorkerContext workerContext) {
            context = workerContext;
        }

        @Override
        public void close() {}

        @Override
        public byte[] address() {
            return new byte[0];
        }

        @Override
        public void workerCommand(WorkerCommand command) {
            UromStatus status = UromStatus.SUCCESS;
            int pid = 0;
            try {
                HostProcess process = context.hostProcess(command.destId());
                pid = process.pid();
                HostProcessTable.close(process.pidfd());
            } catch (UromException e) {
                status = e.status();
            }
            done.add(WorkerNotification.replyTo(
                    command,
                    UromStatus.SUCCESS,
                    ByteBuffer.allocate(8)
                            .order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(status.code())
                            .putInt(pid)
                            .array()));
        }

        @Override
        public void progress(List<? super WorkerNotification> notifications) {
            notifications.addAll(done);
            done.clear();
        }
    }

    private static int[] askJava(TestWorker worker) {
        WorkerAnswer answer = worker.call(new byte[0]);
        assertThat(answer).isSuccessful();
        ByteBuffer in = ByteBuffer.wrap(answer.payload()).order(ByteOrder.LITTLE_ENDIAN);
        return new int[] {in.getInt(0), in.getInt(4)};
    }

    private static Answer askNative(TestWorker worker, byte[] command) {
        WorkerAnswer answer = worker.call(command);
        assertThat(answer).isSuccessful();
        return HostProcessFixture.answer(answer.payload());
    }

    /** How many pidfds this process holds. */
    private static long pidfds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                        try {
                            return Files.readSymbolicLink(fd).toString().equals("anon_inode:[pidfd]");
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .count();
        }
    }

    @Test
    void aJavaPluginsHostIsTheTestsProcessForEveryDestIdUnlessTheTestNamesAnotherOrNone() throws Exception {
        try (TestWorker worker = PluginTestKit.plugin(HostAskingPlugin::new).open();
                TestWorker other =
                        PluginTestKit.plugin(HostAskingPlugin::new).destId(77).open()) {
            assertThat(askJava(worker)).containsExactly(UromStatus.SUCCESS.code(), SELF_PID);
            assertThat(askJava(other)).containsExactly(UromStatus.SUCCESS.code(), SELF_PID);
        }
        long child = startChild().pid();
        try (TestWorker worker =
                PluginTestKit.plugin(HostAskingPlugin::new).hostProcess(child).open()) {
            assertThat(askJava(worker)).containsExactly(UromStatus.SUCCESS.code(), (int) child);
        }
        try (TestWorker worker =
                PluginTestKit.plugin(HostAskingPlugin::new).noHostProcess().open()) {
            assertThat(askJava(worker)[0]).isEqualTo(UromStatus.NOT_SUPPORTED.code());
        }
    }

    @Test
    void aNativePluginsHostIsTheTestsProcessWhoseMemoryItReads() {
        Memory buffer = new Memory(32);
        byte[] pattern = "the test's own bytes, 32 of them".getBytes(StandardCharsets.US_ASCII);
        buffer.write(0, pattern, 0, pattern.length);

        try (TestWorker worker = PluginTestKit.plugin(fixture).destId(5).open()) {
            Answer answer = askNative(
                    worker, HostProcessFixture.command(HostProcessFixture.SELF, 0, Pointer.nativeValue(buffer), 32));

            assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(answer.pid()).isEqualTo(SELF_PID);
            assertThat(answer.alive()).isEqualTo(1);
            assertThat(answer.bytes()).isEqualTo(pattern);
            assertThat(askNative(worker, HostProcessFixture.command(HostProcessFixture.OTHER, 12345, 0, 0))
                            .pid())
                    .as("any other dest id")
                    .isEqualTo(SELF_PID);
            assertThat(askNative(worker, HostProcessFixture.command(HostProcessFixture.NULL_HOST, 0, 0, 0))
                            .status())
                    .isEqualTo(UromStatus.INVALID_VALUE);
        }
    }

    @Test
    void aNativePluginsHostMayBeAChildOrNone() throws Exception {
        long child = startChild().pid();
        try (TestWorker worker =
                PluginTestKit.plugin(fixture).hostProcess(child).open()) {
            assertThat(askNative(worker, HostProcessFixture.self()).pid()).isEqualTo((int) child);
        }
        try (TestWorker worker = PluginTestKit.plugin(fixture).noHostProcess().open()) {
            assertThat(askNative(worker, HostProcessFixture.self()).status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        }
    }

    @Test
    void nativePluginsOpenAtTheSameTimeMustNameTheSameHost() throws Exception {
        long child = startChild().pid();
        try (TestDomain domain = PluginTestKit.plugin(fixture).openDomain(2)) {
            assertThat(askNative(domain.worker(1), HostProcessFixture.self()).pid())
                    .isEqualTo(SELF_PID);
            assertThatThrownBy(() ->
                            PluginTestKit.plugin(fixture).hostProcess(child).open())
                    .isInstanceOf(AssertionError.class)
                    .hasMessageContaining("native plugins in one process share their host process")
                    .hasMessageContaining("host process " + SELF_PID)
                    .hasMessageContaining("host process " + child);
            assertThat(askNative(domain.worker(0), HostProcessFixture.self()).pid())
                    .as("after the refused open")
                    .isEqualTo(SELF_PID);
        }
        try (TestWorker worker =
                PluginTestKit.plugin(fixture).hostProcess(child).open()) {
            assertThat(askNative(worker, HostProcessFixture.self()).pid())
                    .as("once the others are closed")
                    .isEqualTo((int) child);
        }
    }

    @Test
    void aProcessThatDoesNotExistCannotBeTheHost() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(30, TimeUnit.SECONDS)).isTrue();

        assertThatThrownBy(() -> PluginTestKit.plugin(HostAskingPlugin::new)
                        .hostProcess(gone.pid())
                        .open())
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("cannot take process " + gone.pid() + " as the plugin's host");
        assertThatThrownBy(() -> PluginTestKit.plugin(HostAskingPlugin::new).hostProcess(0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aClosedWorkerLeavesNoPidfdAndNoHostForNativePlugins() throws Exception {
        long before = pidfds();
        try (TestWorker worker = PluginTestKit.plugin(fixture).open()) {
            askNative(worker, HostProcessFixture.self());
            assertThat(pidfds()).as("the worker's and the bridge's").isEqualTo(before + 2);
        }
        assertThat(pidfds()).isEqualTo(before);
        assertThatThrownBy(() -> HostProcessTable.lookup(1))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND));
    }

    @Test
    void theCTestKitIsTheHostOfThePluginsItOpens() throws Exception {
        Path include = Path.of("src", "main", "c", "include").toAbsolutePath();
        String source = Files.readString(Path.of("src", "test", "c", "test_host_process.c"));
        Path linked = NativeFixtures.compileProgram(
                dir,
                "test_host_process",
                source,
                "-Werror",
                "-rdynamic",
                "-I" + NativeFixtures.includeDir(),
                "-I" + include,
                "-ldl");
        Path unlinked = NativeFixtures.compileProgram(
                dir,
                "test_host_process_unlinked",
                source,
                "-Werror",
                "-I" + NativeFixtures.includeDir(),
                "-I" + include,
                "-ldl");

        assertThat(run(linked, "linked")).endsWith("20 passed, 0 failed");
        assertThat(run(unlinked, "unlinked")).endsWith("4 passed, 0 failed");
    }

    private static String run(Path program, String mode) throws Exception {
        Process run = new ProcessBuilder(program.toString(), fixture.toString(), mode)
                .redirectErrorStream(true)
                .start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue())
                .as("%s exited; its output:%n%s", program.getFileName(), output)
                .isZero();
        return output;
    }
}
