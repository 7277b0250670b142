// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import dev.urom.nativebridge.testkit.HostProcessFixture;
import dev.urom.nativebridge.testkit.HostProcessFixture.Answer;
import dev.urom.spi.HostProcess;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bridge's table of host processes, as a native plugin sees it through the weak {@code
 * urom_worker_host_process} ({@code host_process_plugin.c}) and Java through {@link
 * HostProcessTable#lookup}: the pid it was entered with, a new live pidfd per look-up, a working
 * {@code process_vm_readv} on this process and on a child, every failure status, and no descriptor
 * left once an entry is removed.
 */
class HostProcessTableTest {
    private static final int SELF_PID = (int) ProcessHandle.current().pid();
    private static final int ESRCH = 3;

    /** The few libc calls the test makes itself. */
    interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int socketpair(int domain, int type, int protocol, int[] sv);

        int pipe(int[] fds);

        int close(int fd);
    }

    @TempDir
    static Path dir;

    private static Path fixture;
    private static Path hostBuffer;

    private NativePlugin plugin;
    private final List<Long> entered = new ArrayList<>();
    private final List<Integer> opened = new ArrayList<>();
    private Process child;

    @BeforeAll
    static void build() {
        fixture = HostProcessFixture.compile(dir, "host_process.so");
        hostBuffer = TestPlugins.buildProgram(dir, "host_buffer.c", "host_buffer");
    }

    @BeforeEach
    void openPlugin() throws UromException {
        plugin = NativePlugin.load(fixture);
        plugin.open(TestContext.withoutDomain());
        HostProcessTable.reserve(64);
    }

    @AfterEach
    void cleanUp() throws InterruptedException {
        plugin.close();
        entered.forEach(HostProcessTable::remove);
        HostProcessTable.clearFallback();
        opened.forEach(LibC.INSTANCE::close);
        if (child != null) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private long enter(long destId, int pid) throws UromException {
        HostProcessTable.enter(destId, pid, HostProcessTable.openPidfd(pid));
        entered.add(destId);
        return destId;
    }

    private Answer ask(long destId, byte[] command) throws UromException {
        plugin.workerCommand(new WorkerCommand(destId, 0x4, destId, command));
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);
        assertThat(out).as("the fixture's answer").hasSize(1);
        assertThat(out.get(0).status()).isEqualTo(UromStatus.SUCCESS);
        return HostProcessFixture.answer(out.get(0).payload());
    }

    private static Memory pattern() {
        Memory buffer = new Memory(64);
        for (int i = 0; i < 64; i++) {
            buffer.setByte(i, (byte) (i * 7 + 3));
        }
        return buffer;
    }

    private static byte[] expectedPattern() {
        byte[] bytes = new byte[64];
        for (int i = 0; i < 64; i++) {
            bytes[i] = (byte) (i * 7 + 3);
        }
        return bytes;
    }

    @Test
    void aNativePluginGetsTheProcessItsConnectionWasEnteredWithAndReadsItsMemory() throws UromException {
        long destId = enter(11, SELF_PID);
        Memory buffer = pattern();

        Answer answer =
                ask(destId, HostProcessFixture.command(HostProcessFixture.SELF, 0, Pointer.nativeValue(buffer), 64));

        assertThat(answer.available())
                .as("the bridge provides urom_worker_host_process")
                .isTrue();
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.pid()).isEqualTo(SELF_PID);
        assertThat(answer.alive()).as("pidfd_send_signal(pidfd, 0)").isEqualTo(1);
        assertThat(answer.closeOnExec()).isTrue();
        assertThat(answer.closed()).as("the pidfd was the plugin's to close").isTrue();
        assertThat(answer.read()).as("process_vm_readv").isEqualTo(64);
        assertThat(answer.bytes()).isEqualTo(expectedPattern());
    }

    @Test
    void aChildProcessIsReadThroughItsOwnPidAndItsPidfdSaysWhenItHasGone() throws Exception {
        child = new ProcessBuilder(hostBuffer.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
        long address = Long.parseUnsignedLong(out.readLine().strip());
        long destId = enter(12, (int) child.pid());

        Answer answer = ask(destId, HostProcessFixture.command(HostProcessFixture.SELF, 0, address, 64));

        assertThat(answer.pid()).isEqualTo((int) child.pid());
        assertThat(answer.read()).isEqualTo(64);
        assertThat(answer.bytes()).isEqualTo(expectedPattern());

        child.getOutputStream().close();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Answer gone = ask(destId, HostProcessFixture.command(HostProcessFixture.SELF, 0, address, 64));
        assertThat(gone.status()).as("the connection is still there").isEqualTo(UromStatus.SUCCESS);
        assertThat(gone.alive())
                .as("pidfd_send_signal on the pidfd of a process that has exited")
                .isEqualTo(-ESRCH);
    }

    @Test
    void everyLookUpIsANewDescriptorAndRemovingAConnectionClosesTheTablesOwn() throws Exception {
        int pidfd = HostProcessTable.openPidfd(SELF_PID);
        HostProcessTable.enter(13, SELF_PID, pidfd);
        entered.add(13L);

        HostProcess first = HostProcessTable.lookup(13);
        HostProcess second = HostProcessTable.lookup(13);
        opened.add(first.pidfd());
        opened.add(second.pidfd());

        assertThat(first.pid()).isEqualTo(SELF_PID);
        assertThat(List.of(first.pidfd(), second.pidfd())).doesNotContain(pidfd).doesNotHaveDuplicates();
        assertThat(descriptor(pidfd)).isEqualTo("anon_inode:[pidfd]");
        assertThat(HostProcessTable.remove(13)).isTrue();
        assertThat(descriptor(pidfd))
                .as("the table's pidfd after the connection was removed")
                .isNotEqualTo("anon_inode:[pidfd]");
        assertThat(descriptor(first.pidfd()))
                .as("a pidfd handed out is the caller's and stays open")
                .isEqualTo("anon_inode:[pidfd]");
        assertThat(HostProcessTable.remove(13)).as("a second removal").isFalse();
        assertThatThrownBy(() -> HostProcessTable.lookup(13))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND));
    }

    /** What /proc/self/fd/FD links to; empty when the descriptor is not open. */
    private static String descriptor(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd)))
                    .toString();
        } catch (IOException e) {
            return "";
        }
    }

    @Test
    void anUnknownConnectionIsNotFoundAndOneWithoutAProcessIsNotSupported() throws UromException {
        HostProcessTable.enterWithoutProcess(14);
        entered.add(14L);

        assertThat(ask(99, HostProcessFixture.self()).status())
                .as("no connection 99")
                .isEqualTo(UromStatus.NOT_FOUND);
        assertThat(ask(14, HostProcessFixture.self()).status())
                .as("a TCP connection")
                .isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThatThrownBy(() -> HostProcessTable.lookup(14))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED));
    }

    @Test
    void nullArgumentsAreInvalid() throws UromException {
        long destId = enter(15, SELF_PID);

        assertThat(ask(destId, HostProcessFixture.command(HostProcessFixture.NULL_HOST, 0, 0, 0))
                        .status())
                .isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(ask(destId, HostProcessFixture.command(HostProcessFixture.NULL_CTX, 0, 0, 0))
                        .status())
                .isEqualTo(UromStatus.INVALID_VALUE);
    }

    @Test
    void theKernelNamesThePeerOfAUnixSocketExactly() throws UromException {
        int[] sv = new int[2];
        assertThat(LibC.INSTANCE.socketpair(1, 1, 0, sv))
                .as("socketpair(AF_UNIX, SOCK_STREAM)")
                .isZero();
        opened.add(sv[0]);
        opened.add(sv[1]);

        HostProcessTable.Peer peer = HostProcessTable.enterPeer(16, sv[0]);
        entered.add(16L);

        assertThat(peer.pid()).isEqualTo(SELF_PID);
        assertThat(peer.exact())
                .as("SO_PEERPIDFD (Linux 6.5 or later) named the peer")
                .isTrue();
        HostProcess process = HostProcessTable.lookup(16);
        opened.add(process.pidfd());
        assertThat(process.pid()).isEqualTo(SELF_PID);
    }

    @Test
    void aDescriptorThatIsNoSocketIsEnteredWithoutAProcess() throws UromException {
        int[] pipe = new int[2];
        assertThat(LibC.INSTANCE.pipe(pipe)).isZero();
        opened.add(pipe[0]);
        opened.add(pipe[1]);

        assertThatThrownBy(() -> HostProcessTable.enterPeer(17, pipe[0]))
                .isInstanceOfSatisfying(UromException.class, e -> {
                    assertThat(e.status()).isEqualTo(UromStatus.NOT_SUPPORTED);
                    assertThat(e.getMessage()).contains("ENOTSOCK");
                });
        entered.add(17L);
        assertThat(ask(17, HostProcessFixture.self()).status()).isEqualTo(UromStatus.NOT_SUPPORTED);
    }

    @Test
    void withoutSoPeerpidfdThePidfdComesFromThePidAndSaysSo() throws Exception {
        Path program = TestPlugins.buildProgram(dir, "peer_fallback.c", "peer_fallback", "-ldl");
        Process run = new ProcessBuilder(
                        program.toString(), NativeArtifacts.bridgeLibrary().toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String line = new String(run.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue())
                .as("peer_fallback's exit status (output: %s)", line)
                .isZero();

        long self = run.pid();
        assertThat(line).isEqualTo("rc=0 pid=" + self + " self=" + self + " exact=0 pidfd_pid=" + self);
    }

    @Test
    void aConnectionIsEnteredOnceAndAnEntryThatCannotBeMadeClosesItsPidfd() throws UromException {
        enter(18, SELF_PID);
        int pidfd = HostProcessTable.openPidfd(SELF_PID);

        assertThatThrownBy(() -> HostProcessTable.enter(18, SELF_PID, pidfd))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("host connection 18 is in the table already");
        assertThat(descriptor(pidfd)).isNotEqualTo("anon_inode:[pidfd]");
    }

    @Test
    void theFallbackAnswersForEveryConnectionTheTableDoesNotHold() throws UromException {
        HostProcessTable.enterWithoutProcess(19);
        entered.add(19L);
        HostProcessTable.fallback(SELF_PID, HostProcessTable.openPidfd(SELF_PID));

        Answer any = ask(12345, HostProcessFixture.self());
        assertThat(any.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(any.pid()).isEqualTo(SELF_PID);
        assertThat(ask(19, HostProcessFixture.self()).status())
                .as("a connection the table holds")
                .isEqualTo(UromStatus.NOT_SUPPORTED);

        HostProcessTable.fallback(0, -1);
        assertThat(ask(12345, HostProcessFixture.self()).status())
                .as("a fallback without a process")
                .isEqualTo(UromStatus.NOT_SUPPORTED);
        HostProcessTable.clearFallback();
        assertThat(ask(12345, HostProcessFixture.self()).status()).isEqualTo(UromStatus.NOT_FOUND);
    }

    @Test
    void pidfdOpenOfAPidWithoutAProcessIsNotFound() {
        assertThatThrownBy(() -> HostProcessTable.openPidfd(Integer.MAX_VALUE))
                .isInstanceOfSatisfying(UromException.class, e -> {
                    assertThat(e.status()).isEqualTo(UromStatus.NOT_FOUND);
                    assertThat(e.getMessage()).contains("ESRCH");
                });
    }
}
