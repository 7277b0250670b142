// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.security.UnixAccounts;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.os.ChannelDescriptors;
import dev.urom.service.os.ChildJvm;
import dev.urom.service.process.WorkerLine;
import dev.urom.service.process.WorkerLines;
import dev.urom.wire.FrameChannel;
import dev.urom.wire.Handshake;
import dev.urom.wire.Message.HelloOk;
import dev.urom.wire.Protocol;
import dev.urom.wire.Role;
import dev.urom.wire.ServiceAddress;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A {@link WorkerMain} child process for tests: started as the daemon starts one (its access line,
 * owned by this test's Unix user, written first on its stdin, and the daemon's JVM option {@link
 * ChannelDescriptors#JVM_OPTION}), with its first stdout line read.
 * {@link #destroy()} kills it; tests call it from {@code @AfterEach}.
 */
final class WorkerProcess {
    /** Who the workers of these tests belong to, unless a test says otherwise: this test's own Unix user. */
    static final WorkerAccess ACCESS =
            WorkerAccess.of(Principal.unix(UnixAccounts.effectiveUid()), Optional.empty(), Proofs.randomSecret(32));
    /** A key principal's key, for workers on TCP. */
    static final AuthKey TEST_KEY = AuthKey.of("worker-test", "k".repeat(32).getBytes(StandardCharsets.US_ASCII));
    /** The access of a worker owned by {@link #TEST_KEY}'s principal. */
    static final WorkerAccess KEY_ACCESS =
            WorkerAccess.of(TEST_KEY.principal(), Optional.of(TEST_KEY), Proofs.randomSecret(32));

    final Process process;
    final String replyLine;
    /** The rest of its stdout, after the reply line. */
    final BufferedReader stdout;
    /** What the daemon's first line told the worker; null when a test wrote a line of its own. */
    final WorkerAccess access;
    /** Where the worker's stderr, and so its log, goes. */
    final Path logFile;

    final List<FrameChannel> channels = new ArrayList<>();

    private WorkerProcess(Process process, BufferedReader stdout, WorkerAccess access, Path logFile)
            throws IOException {
        this.process = process;
        this.stdout = stdout;
        this.replyLine = stdout.readLine();
        this.access = access;
        this.logFile = logFile;
    }

    /** The seal a worker with {@link #ACCESS} gives the address {@code address} of plugin {@code pluginId}. */
    static byte[] seal(long pluginId, byte[] address) {
        return Proofs.seal(ACCESS.sealKey(), pluginId, address);
    }

    /** The usual arguments for worker 7 listening on {@code listen}, plus {@code extra}. */
    static List<String> args(ServiceAddress listen, int maxMessageSize, List<String> extra) {
        List<String> args = new ArrayList<>(List.of(
                "--worker-id",
                "7",
                "--gid",
                "3",
                "--listen",
                listen.toString(),
                "--log-level",
                "60",
                "--sdk-log-level",
                "40",
                "--max-msg-size",
                Integer.toString(maxMessageSize)));
        args.addAll(extra);
        return args;
    }

    /** Starts a worker, its stderr (its log) into a new file in {@code logDir}. */
    static WorkerProcess start(Path logDir, List<String> args) throws IOException {
        return start(logDir, List.of(), args, ACCESS);
    }

    /**
     * Starts a worker with {@code jvmOptions}, its stderr into a new file in {@code logDir}, that the
     * daemon's first line tells it is {@code access}.
     */
    static WorkerProcess start(Path logDir, List<String> jvmOptions, List<String> args, WorkerAccess access)
            throws IOException {
        return start(logDir, jvmOptions, args, access, line(access), Map.of(), true);
    }

    /**
     * Starts a worker with {@link #ACCESS} whose JVM lacks {@link ChannelDescriptors#JVM_OPTION}, which
     * the daemon gives every worker: it cannot reach its connections' descriptors.
     */
    static WorkerProcess startWithoutChannelExports(Path logDir, List<String> args) throws IOException {
        return start(logDir, List.of(), args, ACCESS, line(ACCESS), Map.of(), false);
    }

    /** Starts a worker with {@link #ACCESS} and {@code env} added to the test JVM's environment. */
    static WorkerProcess start(Path logDir, List<String> args, Map<String, String> env) throws IOException {
        return start(logDir, List.of(), args, ACCESS, line(ACCESS), env, true);
    }

    /** Starts a worker whose first line from the daemon is {@code accessLine}, whatever it says. */
    static WorkerProcess startWithAccessLine(Path logDir, List<String> args, String accessLine) throws IOException {
        return start(logDir, List.of(), args, null, accessLine, Map.of(), true);
    }

    /** @param channelExports whether the JVM gets {@link ChannelDescriptors#JVM_OPTION}, as the daemon's workers do */
    private static WorkerProcess start(
            Path logDir,
            List<String> jvmOptions,
            List<String> args,
            WorkerAccess access,
            String accessLine,
            Map<String, String> env,
            boolean channelExports)
            throws IOException {
        Files.createDirectories(logDir);
        Path logFile = Files.createTempFile(logDir, "worker-", ".log");
        List<String> options = new ArrayList<>(jvmOptions);
        if (channelExports) {
            options.add(ChannelDescriptors.JVM_OPTION);
        }
        ProcessBuilder builder =
                new ProcessBuilder(ChildJvm.command(WorkerMain.class, options, args)).redirectError(logFile.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().write((accessLine + "\n").getBytes(StandardCharsets.US_ASCII));
        process.getOutputStream().flush();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        return new WorkerProcess(process, out, access, logFile);
    }

    /** What the worker has written to its stderr: its log. */
    String log() throws IOException {
        return Files.readString(logFile);
    }

    /** The ACCESS line the daemon writes for {@code access}. */
    static String line(WorkerAccess access) {
        return WorkerLines.encode(new WorkerLine.Access(access));
    }

    /** The address of {@code READY <address>}; fails the test on any other reply. */
    ServiceAddress readyAddress() {
        assertThat(replyLine).as("the worker's reply").startsWith("READY ");
        return ServiceAddress.parse(replyLine.substring("READY ".length()));
    }

    /** A host connection that has done its handshake (proving {@link #TEST_KEY} when the owner is its principal); closed by {@link #destroy()}. */
    Connected connect() throws Exception {
        return connect(access.owner().equals(TEST_KEY.principal()) ? Optional.of(TEST_KEY) : Optional.empty());
    }

    /** A host connection that has done its handshake with {@code key}; closed by {@link #destroy()}. */
    Connected connect(Optional<AuthKey> key) throws Exception {
        FrameChannel channel = new FrameChannel(readyAddress().connect(), Protocol.CONTROL_FRAME_LIMIT);
        channels.add(channel);
        HelloOk ok = Handshake.client(channel, Role.HOST, Proofs.Channel.DATA, key, Duration.ofSeconds(30));
        channel.setFrameLimit(Protocol.dataFrameLimit(ok.maxMessageSize()));
        return new Connected(channel, ok);
    }

    /** Waits for the process to end and returns its exit status. */
    int awaitExit() throws InterruptedException {
        assertThat(process.waitFor(60, TimeUnit.SECONDS))
                .as("the worker ended within 60 s")
                .isTrue();
        return process.exitValue();
    }

    void destroy() throws InterruptedException {
        for (FrameChannel channel : channels) {
            channel.close();
        }
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    record Connected(FrameChannel channel, HelloOk hello) {}
}
