// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Frame;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Message;
import dev.urom.wire.Message.Command;
import dev.urom.wire.Message.ErrorReply;
import dev.urom.wire.Message.Notify;
import dev.urom.wire.Message.Stop;
import dev.urom.wire.Message.StopOk;
import dev.urom.wire.ServiceAddress;
import dev.urom.wire.WireException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerMainTest {
    private static final long ECHO_ID = 0x4;
    private static final int MAX_MSG = 4096;

    @TempDir
    static Path pluginDir;

    private static Path echo;

    @TempDir
    Path dir;

    @RegisterExtension
    final WorkerProcesses workers = new WorkerProcesses();

    @BeforeAll
    static void compilePlugins() {
        echo = WorkerFixtures.echo(pluginDir, "echo.so");
    }

    private ServiceAddress socket() {
        return ServiceAddress.unix(dir.resolve("run").resolve("worker-7.sock"));
    }

    private WorkerProcess startEcho(String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of(extra));
        args.add(echo + ":" + ECHO_ID);
        return start(WorkerProcess.args(socket(), MAX_MSG, args));
    }

    private WorkerProcess start(List<String> args) throws IOException {
        return track(WorkerProcess.start(dir.resolve("log"), args));
    }

    private WorkerProcess track(WorkerProcess worker) {
        workers.add(worker);
        return worker;
    }

    private static Notify receiveNotify(FrameChannel channel) throws Exception {
        Message message = channel.receive().message();
        assertThat(message).isInstanceOf(Notify.class);
        return (Notify) message;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void answersReadyAndEchoesAHostsCommands() throws Exception {
        WorkerProcess worker = startEcho();
        assertThat(worker.replyLine).isEqualTo("READY " + socket());
        Connected host = worker.connect();
        assertThat(host.hello().maxMessageSize()).isEqualTo(MAX_MSG);
        assertThat(host.hello().connectionId()).isPositive();

        for (int i = 1; i <= 3; i++) {
            host.channel().send(0, new Command(ECHO_ID, 100 + i, bytes("ping " + i)));
            assertThat(receiveNotify(host.channel()))
                    .isEqualTo(new Notify(ECHO_ID, 100 + i, UromStatus.SUCCESS, bytes("ping " + i)));
        }
    }

    @Test
    void listensOnTcpPortZeroAndReportsTheRealPort() throws Exception {
        WorkerProcess worker = track(WorkerProcess.start(
                dir.resolve("log"),
                List.of(),
                WorkerProcess.args(ServiceAddress.tcp("127.0.0.1", 0), MAX_MSG, List.of(echo + ":" + ECHO_ID)),
                WorkerProcess.KEY_ACCESS));
        ServiceAddress address = worker.readyAddress();
        assertThat(address.isUnix()).isFalse();
        assertThat(address.port()).isPositive();
        Connected host = worker.connect();
        host.channel().send(0, new Command(ECHO_ID, 1, bytes("tcp")));
        assertThat(receiveNotify(host.channel()).payload()).isEqualTo(bytes("tcp"));
    }

    @Test
    void twoConnectionsGetDistinctDestIdsAndOnlyTheirOwnNotifications() throws Exception {
        WorkerProcess worker = startEcho();
        Connected a = worker.connect();
        Connected b = worker.connect();
        assertThat(a.hello().connectionId()).isNotEqualTo(b.hello().connectionId());

        for (int i = 0; i < 20; i++) {
            a.channel().send(0, new Command(ECHO_ID, 1000 + i, bytes("a" + i)));
            b.channel().send(0, new Command(ECHO_ID, 2000 + i, bytes("b" + i)));
        }
        for (int i = 0; i < 20; i++) {
            assertThat(receiveNotify(a.channel()))
                    .isEqualTo(new Notify(ECHO_ID, 1000 + i, UromStatus.SUCCESS, bytes("a" + i)));
            assertThat(receiveNotify(b.channel()))
                    .isEqualTo(new Notify(ECHO_ID, 2000 + i, UromStatus.SUCCESS, bytes("b" + i)));
        }
        a.channel().send(0, new Stop());
        assertThat(a.channel().receive().message())
                .as("nothing of b's before STOP_OK")
                .isEqualTo(new StopOk());
        b.channel().send(0, new Command(ECHO_ID, 3000, bytes("still here")));
        assertThat(receiveNotify(b.channel()).uromContext()).isEqualTo(3000);
    }

    @Test
    void aCommandForAnUnknownPluginIdIsAnsweredNotFound() throws Exception {
        Connected host = startEcho().connect();
        host.channel().send(0, new Command(0x100, 9, bytes("anyone?")));
        assertThat(receiveNotify(host.channel())).isEqualTo(new Notify(0x100, 9, UromStatus.NOT_FOUND, new byte[0]));
    }

    @Test
    void aCommandOfExactlyTheMaximumSizeIsAcceptedAndOneByteMoreIsTooBig() throws Exception {
        Connected host = startEcho().connect();
        byte[] exact = new byte[MAX_MSG - Command.HEADER_BYTES];
        exact[exact.length - 1] = 42;
        host.channel().send(0, new Command(ECHO_ID, 1, exact));
        Notify answer = receiveNotify(host.channel());
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.payload()).isEqualTo(exact);

        host.channel().send(0, new Command(ECHO_ID, 2, new byte[exact.length + 1]));
        assertThat(receiveNotify(host.channel())).isEqualTo(new Notify(ECHO_ID, 2, UromStatus.TOO_BIG, new byte[0]));

        host.channel().send(0, new Command(ECHO_ID, 3, bytes("after")));
        assertThat(receiveNotify(host.channel())).isEqualTo(new Notify(ECHO_ID, 3, UromStatus.SUCCESS, bytes("after")));
    }

    @Test
    void aFrameOverTheLimitClosesThatConnectionOnly() throws Exception {
        WorkerProcess worker = startEcho();
        Connected good = worker.connect();
        Connected bad = worker.connect();
        // the frame limit is MAX_MSG + 64 bytes after the length field; this frame has one more
        bad.channel().send(0, new Command(ECHO_ID, 1, new byte[MAX_MSG + 64 - 12 - Command.HEADER_BYTES + 1]));
        assertClosedByWorker(bad.channel(), UromStatus.TOO_BIG);
        assertStillServed(good);
    }

    @Test
    void garbageBytesCloseThatConnectionOnly() throws Exception {
        WorkerProcess worker = startEcho();
        Connected good = worker.connect();
        try (SocketChannel raw = worker.readyAddress().connect()) {
            raw.write(ByteBuffer.wrap(bytes("GET / HTTP/1.1\r\nHost: worker\r\n\r\n")));
            assertRawClosed(raw);
        }
        Connected handshaken = worker.connect();
        handshaken.channel().socket().write(ByteBuffer.wrap(new byte[] {3, 0, 0, 0, 1, 2, 3}));
        assertClosedByWorker(handshaken.channel(), UromStatus.INVALID_VALUE);
        assertStillServed(good);
    }

    @Test
    void anUnknownMessageTypeClosesThatConnectionOnly() throws Exception {
        WorkerProcess worker = startEcho();
        Connected good = worker.connect();
        Connected bad = worker.connect();
        ByteBuffer frame = ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(12)
                .putShort((short) 99)
                .putShort((short) 0)
                .putLong(0);
        bad.channel().socket().write(frame.flip());
        assertClosedByWorker(bad.channel(), UromStatus.INVALID_VALUE);
        assertStillServed(good);
    }

    @Test
    void aControlMessageOnADataConnectionClosesIt() throws Exception {
        WorkerProcess worker = startEcho();
        Connected good = worker.connect();
        Connected bad = worker.connect();
        bad.channel().send(5, new Message.PluginsRequest());
        assertClosedByWorker(bad.channel(), UromStatus.NOT_SUPPORTED);
        assertStillServed(good);
    }

    @Test
    void aFirstFrameOtherThanHelloIsRefused() throws Exception {
        WorkerProcess worker = startEcho();
        Connected good = worker.connect();
        FrameChannel raw = new FrameChannel(worker.readyAddress().connect(), 65536);
        worker.channels.add(raw);
        raw.send(0, new Command(ECHO_ID, 1, bytes("no hello")));
        assertClosedByWorker(raw, UromStatus.UNEXPECTED);
        assertStillServed(good);
    }

    @Test
    void stopIsAnsweredAndTheLastConnectionsStopEndsTheWorkerAndRemovesItsSocket() throws Exception {
        WorkerProcess worker = startEcho();
        Connected host = worker.connect();
        assertThat(Files.exists(socket().unixPath())).isTrue();
        host.channel().send(0, new Command(ECHO_ID, 5, bytes("last words")));
        host.channel().send(0, new Stop());
        assertThat(receiveNotify(host.channel()).uromContext())
                .as("the answer comes before STOP_OK")
                .isEqualTo(5);
        assertThat(host.channel().receive().message()).isEqualTo(new StopOk());
        assertThatEndOfStream(host.channel());
        assertThat(worker.awaitExit()).isZero();
        assertThat(socket().unixPath()).doesNotExist();
    }

    @Test
    void theLastStopIsAnsweredOnlyOnceTheDaemonHasBeenToldTheWorkerIsEnding() throws Exception {
        WorkerProcess worker = startEcho();
        Connected first = worker.connect();
        Connected second = worker.connect();
        first.channel().send(0, new Stop());
        assertThat(first.channel().receive().message()).isEqualTo(new StopOk());
        askForCounts(worker, 1);
        assertThat(worker.stdout.readLine())
                .as("a worker that still serves a host answers; it is not ending")
                .startsWith("STATS 1 {");

        second.channel().send(0, new Stop());
        assertThat(second.channel().receive().message()).isEqualTo(new StopOk());
        assertThat(worker.stdout.ready())
                .as("the daemon's pipe holds a line when the last STOP_OK arrives")
                .isTrue();
        assertThat(worker.stdout.readLine()).isEqualTo("ENDING");
        assertThat(worker.stdout.readLine()).startsWith("STATS final {");
        assertThat(worker.stdout.readLine()).isNull();
        assertThat(worker.awaitExit()).isZero();
    }

    @Test
    void aRequestForCountsAfterTheLastHostClosedIsAnsweredOnlyAfterEnding() throws Exception {
        WorkerProcess worker = startEcho();
        Connected host = worker.connect();
        host.channel().close();
        askForCounts(worker, 5);
        assertThat(worker.stdout.readLine())
                .as("the first line after the last host closed its connection")
                .isEqualTo("ENDING");
        String next = worker.stdout.readLine();
        if (next.startsWith("STATS 5 ")) {
            next = worker.stdout.readLine();
        }
        assertThat(next).startsWith("STATS final {");
        assertThat(worker.awaitExit()).isZero();
    }

    @Test
    void theWorkerEndsWhenItsLastHostDisconnects() throws Exception {
        WorkerProcess worker = startEcho();
        Connected first = worker.connect();
        Connected second = worker.connect();
        first.channel().close();
        second.channel().send(0, new Command(ECHO_ID, 1, bytes("alive")));
        assertThat(receiveNotify(second.channel()).uromContext()).isEqualTo(1);
        second.channel().close();
        assertThat(worker.awaitExit()).isZero();
        assertThat(socket().unixPath()).doesNotExist();
    }

    @Test
    void theWorkerEndsWhenNoHostConnectsWithinTheIdleTimeout() throws Exception {
        WorkerProcess worker = startEcho("--idle-timeout-ms", "300");
        worker.readyAddress();
        assertThat(worker.stdout.readLine()).isEqualTo("ENDING");
        assertThat(worker.stdout.readLine()).startsWith("STATS final {");
        assertThat(worker.awaitExit()).isZero();
        assertThat(socket().unixPath()).doesNotExist();
        String log = worker.log();
        assertThat(log).contains("no host connected within 300 ms");
    }

    @Test
    void theWorkerEndsPromptlyWhenItsStdinCloses() throws Exception {
        WorkerProcess worker = startEcho();
        worker.connect();
        long start = System.nanoTime();
        worker.process.getOutputStream().close();
        assertThat(worker.awaitExit()).isEqualTo(WorkerMain.EXIT_FAILED);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(10_000);
        String log = worker.log();
        assertThat(log).contains("the daemon is gone");
    }

    @Test
    void aPluginThatFailsToOpenFailsTheStart() throws Exception {
        Path refusing = WorkerFixtures.failingOpen(dir);
        WorkerProcess worker =
                start(WorkerProcess.args(socket(), MAX_MSG, List.of(echo + ":" + ECHO_ID, refusing + ":0x8")));
        assertThat(worker.replyLine)
                .startsWith("FAILED NOT_PERMITTED plugin 'refusing' (" + refusing + ":8): open failed");
        assertThat(worker.awaitExit()).isEqualTo(1);
        assertThat(socket().unixPath()).doesNotExist();
    }

    @Test
    void aMissingPluginFileFailsTheStart() throws Exception {
        Path missing = dir.resolve("missing.so");
        WorkerProcess worker = start(WorkerProcess.args(socket(), MAX_MSG, List.of(missing + ":0x8")));
        assertThat(worker.replyLine).startsWith("FAILED ").contains("plugin 'missing' (" + missing + ":8)");
        assertThat(worker.awaitExit()).isEqualTo(1);
    }

    @Test
    void badArgumentsAreAnsweredInvalidValueWithExitStatus2() throws Exception {
        WorkerProcess worker = start(List.of("--worker-id", "7", "--listen", "nowhere"));
        assertThat(worker.replyLine)
                .isEqualTo("FAILED INVALID_VALUE option --listen: service address 'nowhere' is invalid: "
                        + "it starts with neither 'unix:' nor 'tcp:'");
        assertThat(worker.awaitExit()).isEqualTo(2);
    }

    @Test
    void aCpuTheProcessMayNotUseFailsTheStart() throws Exception {
        WorkerProcess worker = startEcho("--cpus", "4095");
        assertThat(worker.replyLine).startsWith("FAILED INVALID_VALUE CPU 4095 is not available to this process");
        assertThat(worker.awaitExit()).isEqualTo(1);
    }

    @Test
    void pinsEveryThreadToTheGivenCpus() throws Exception {
        String cpu = Integer.toString(dev.urom.service.os.Affinity.allowedCpus().length() - 1);
        WorkerProcess worker = startEcho("--cpus", cpu);
        worker.readyAddress();
        List<String> lists = new ArrayList<>();
        try (var tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(worker.process.pid()), "task"))) {
            for (Path task : tasks) {
                for (String line : Files.readAllLines(task.resolve("status"))) {
                    if (line.startsWith("Cpus_allowed_list:")) {
                        lists.add(line.substring("Cpus_allowed_list:".length()).trim());
                    }
                }
            }
        }
        assertThat(lists).hasSizeGreaterThan(5).containsOnly(cpu);
    }

    @Test
    void aNativePluginsLogMessagesGoToTheWorkersLog() throws Exception {
        Path logging = WorkerFixtures.logging(dir);
        WorkerProcess worker = start(WorkerProcess.args(socket(), MAX_MSG, List.of(logging + ":0x2")));
        Connected host = worker.connect();
        host.channel().send(0, new Command(0x2, 1, bytes("log me")));
        assertThat(receiveNotify(host.channel()).status()).isEqualTo(UromStatus.SUCCESS);
        host.channel().send(0, new Stop());
        assertThat(host.channel().receive().message()).isEqualTo(new StopOk());
        assertThat(worker.awaitExit()).isZero();

        assertThat(worker.log())
                .contains("TEST::WORKER::LOGGING - logging plugin opened, worker 42")
                .contains("TEST::WORKER::LOGGING - logging plugin got a command batch")
                .contains("worker 7: host connection 1 opened")
                .contains("host connection 1 sent STOP");
    }

    @Test
    void aNativePluginThatCrashesInACommandKillsTheWorkerBySignal() throws Exception {
        Path crashing = WorkerFixtures.crashing(dir);
        Path crashLog = dir.resolve("crash.log");
        WorkerProcess worker = WorkerProcess.start(
                dir.resolve("log"),
                List.of("-XX:ErrorFile=" + crashLog),
                WorkerProcess.args(socket(), MAX_MSG, List.of(crashing + ":0x2")),
                WorkerProcess.ACCESS);
        workers.add(worker);
        Connected host = worker.connect();
        host.channel().send(0, new Command(0x2, 1, bytes("boom")));
        assertThatEndOfStream(host.channel());
        // HotSpot catches the SIGSEGV, writes its crash report and aborts: the process ends by SIGABRT.
        assertThat(worker.awaitExit()).as("killed by SIGABRT (128 + 6)").isEqualTo(128 + 6);
        assertThat(Files.readString(crashLog)).contains("SIGSEGV").contains("crashing.so");
    }

    @Test
    void servesAJavaPluginJarNextToANativePlugin() throws Exception {
        Path jar = WorkerFixtures.javaPluginJar(dir.resolve("java_echo.jar"), "java_echo", "3", EchoJavaPlugin.class);
        WorkerProcess worker =
                start(WorkerProcess.args(socket(), MAX_MSG, List.of(echo + ":" + ECHO_ID, jar + ":0x10")));
        Connected host = worker.connect();
        host.channel().send(0, new Command(0x10, 1, bytes("abc")));
        host.channel().send(0, new Command(ECHO_ID, 2, bytes("abc")));
        // answers of different plugins come in the order the worker's progress visits the plugins
        assertThat(List.of(receiveNotify(host.channel()), receiveNotify(host.channel())))
                .containsExactlyInAnyOrder(
                        new Notify(0x10, 1, UromStatus.SUCCESS, bytes("cba")),
                        new Notify(ECHO_ID, 2, UromStatus.SUCCESS, bytes("abc")));
        String log = worker.log();
        assertThat(log).contains("test.java.echo - java echo plugin opened");
    }

    /** Writes the daemon's {@code STATS <n>} on the worker's stdin. */
    private static void askForCounts(WorkerProcess worker, long n) throws IOException {
        worker.process.getOutputStream().write(("STATS " + n + "\n").getBytes(StandardCharsets.US_ASCII));
        worker.process.getOutputStream().flush();
    }

    private static void assertStillServed(Connected host) throws Exception {
        host.channel().send(0, new Command(ECHO_ID, 77, bytes("still served")));
        assertThat(receiveNotify(host.channel()))
                .isEqualTo(new Notify(ECHO_ID, 77, UromStatus.SUCCESS, bytes("still served")));
    }

    /** The worker sends ERROR with {@code status} (unless the socket was reset first) and closes. */
    private static void assertClosedByWorker(FrameChannel channel, UromStatus status) throws Exception {
        try {
            Frame frame = channel.receive();
            assertThat(frame.message())
                    .isInstanceOfSatisfying(
                            ErrorReply.class, e -> assertThat(e.status()).isEqualTo(status));
        } catch (IOException reset) {
            assertThat(reset).isNotInstanceOf(EOFException.class);
            return;
        }
        assertThatEndOfStream(channel);
    }

    private static void assertThatEndOfStream(FrameChannel channel) throws Exception {
        try {
            Frame frame = channel.receive();
            fail("expected the worker to close the connection, got " + frame);
        } catch (EOFException | WireException expected) {
            // closed
        } catch (IOException reset) {
            // closed with unread data: reset
        }
    }

    private static void assertRawClosed(SocketChannel raw) throws IOException {
        ByteBuffer sink = ByteBuffer.allocate(1024);
        try {
            while (raw.read(sink) >= 0) {
                sink.clear();
            }
        } catch (IOException reset) {
            // closed with unread data: reset
        }
    }
}
