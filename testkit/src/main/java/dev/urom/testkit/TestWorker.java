// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.worker.IdleBackoff;
import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.spi.Api;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * One plugin loaded and opened in this process by the framework's worker host, driven by the test
 * command by command: {@link #send} hands it a command, {@link #progress} makes one round of
 * progress, the waits ({@link #call}, {@link #awaitAnswer}, {@link #awaitNotifications}) make
 * progress until what they wait for has come, or fail the test after the worker's time limit
 * ({@link PluginTestKit.Builder#timeout}) with an {@link AssertionError} that lists what came
 * instead.
 *
 * <p>Notifications that come while the test waits for something else are kept, in order, as
 * {@linkplain #unclaimed() unclaimed}; a wait takes the first that matches. Commands the worker
 * refuses itself (over the maximum message size) and commands the plugin refuses (a {@code
 * worker_cmd} that returns an error, a Java plugin that throws) are answered with the error status
 * and no payload, as a real worker answers them. The waits for one notification return it as a
 * {@link WorkerAnswer}, which says who made it and why a refused command was refused; {@link
 * PluginAssertions} reads both.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>One thread.</b> The thread that opened the worker drives it; any other thread gets an
 *       {@link IllegalStateException}.
 *   <li><b>In a domain</b> ({@link TestDomain}), every wait makes progress on every worker of it.
 *   <li><b>Ownership.</b> {@link #close()} closes the plugin once, and the pidfd of its host
 *       process ({@link PluginTestKit.Builder#hostProcess}); a worker opened alone ({@link
 *       PluginTestKit.Builder#open()}) closes its domain with it. After it, everything but {@link
 *       #close()} throws {@link IllegalStateException}.
 * </ul>
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public final class TestWorker implements AutoCloseable {
    private final TestDomain domain;
    private final int domainId;
    private final WorkerHost host;
    private final TestHostProcess hostProcess;
    private final PluginIface plugin;
    private final String name;
    private final long pluginId;
    private final long destId;
    private final Duration timeout;
    private final List<WorkerAnswer> unclaimed = new ArrayList<>();
    private long nextContext = 1;
    private boolean alone;
    private boolean closed;

    TestWorker(
            TestDomain domain,
            int domainId,
            WorkerHost host,
            TestHostProcess hostProcess,
            PluginTestKit.Builder settings) {
        this.domain = domain;
        this.domainId = domainId;
        this.host = host;
        this.hostProcess = hostProcess;
        this.pluginId = settings.pluginId();
        this.plugin = host.plugin(pluginId).orElseThrow();
        this.name = settings.fileName().orElse(plugin.getClass().getSimpleName());
        this.destId = settings.destId();
        this.timeout = settings.timeout();
    }

    /** Makes this worker the owner of its one-worker domain: closing it closes the domain. */
    TestWorker detachFromDomain() {
        alone = true;
        return this;
    }

    /** The plugin's name: its file name less the extension, or its class's simple name. */
    public String pluginName() {
        return name;
    }

    /** The plugin's id: the {@code type} of the commands sent to it. */
    public long pluginId() {
        return pluginId;
    }

    /** This worker's place in its domain (0 when alone). */
    public int domainId() {
        return domainId;
    }

    /** The plugin itself, opened; for what the kit does not wrap. Call it from the driving thread only. */
    public PluginIface plugin() {
        checkUsable();
        return plugin;
    }

    /**
     * The address the plugin publishes to its domain ({@code addr}).
     *
     * @throws AssertionError when the plugin fails to give one, with its status and reason
     */
    public byte[] address() {
        checkUsable();
        try {
            return plugin.address();
        } catch (UromException e) {
            throw new AssertionError(where() + ": addr failed: " + e.status() + ": " + e.getMessage(), e);
        }
    }

    /**
     * What the plugin's {@code notif_pack} makes of {@code notification}: the bytes a host receives.
     *
     * @throws AssertionError when the plugin fails to pack it, with its status and reason
     */
    public byte[] pack(WorkerNotification notification) {
        requireNonNull(notification, "notification is null");
        checkUsable();
        try {
            return plugin.packNotification(notification);
        } catch (UromException e) {
            throw new AssertionError(
                    where() + ": notif_pack of " + Notifications.describe(notification) + " failed: " + e.status()
                            + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * The bytes a host receives for {@code answer}: the plugin's {@code notif_pack} of a notification
     * the plugin made ({@link #pack(WorkerNotification)}), the worker's own packing ({@link
     * WorkerNotification#pack()}) of an answer the worker made ({@link WorkerAnswer#madeByWorker()}).
     *
     * @throws AssertionError when the plugin fails to pack it, with its status and reason
     */
    public byte[] pack(WorkerAnswer answer) {
        requireNonNull(answer, "answer is null");
        checkUsable();
        return answer.madeByWorker() ? answer.notification().pack() : pack(answer.notification());
    }

    /** Sends {@code payload} as a command with the next context number (1, 2, ...); returns the command sent. */
    public WorkerCommand send(byte[] payload) {
        return send(nextContext++, payload);
    }

    /** Sends {@code payload} as a command with this {@code uromContext}; returns the command sent. The payload is copied. */
    public WorkerCommand send(long uromContext, byte[] payload) {
        requireNonNull(payload, "payload is null");
        checkUsable();
        return send(new WorkerCommand(destId, pluginId, uromContext, payload.clone()));
    }

    /**
     * Sends {@code command} as it is: its own {@code destId}, {@code type} (a type that is not this
     * plugin's id is answered NOT_FOUND by the worker) and {@code uromContext}.
     */
    public WorkerCommand send(WorkerCommand command) {
        requireNonNull(command, "command is null");
        checkUsable();
        host.submit(command);
        return command;
    }

    /** Sends {@code payload} and waits for its answer ({@link #awaitAnswer}). */
    public WorkerAnswer call(byte[] payload) {
        return awaitAnswer(send(payload));
    }

    /**
     * Waits for the notification that answers {@code command}: the first with its {@code type} and
     * {@code uromContext}, the plugin's or the worker's. Takes it out of the unclaimed ones.
     *
     * @throws AssertionError when none comes within the time limit
     */
    public WorkerAnswer awaitAnswer(WorkerCommand command) {
        requireNonNull(command, "command is null");
        return awaitNotification(
                n -> n.type() == command.type() && n.uromContext() == command.uromContext(),
                "answer to " + Notifications.describe(command));
    }

    /**
     * Waits for the first notification that {@code wanted} accepts, and takes it out of the
     * unclaimed ones.
     *
     * @param description what is awaited, for the failure message
     * @throws AssertionError when none comes within the time limit
     */
    public WorkerAnswer awaitNotification(Predicate<WorkerNotification> wanted, String description) {
        requireNonNull(wanted, "wanted is null");
        requireNonNull(description, "description is null");
        checkUsable();
        WorkerAnswer[] taken = new WorkerAnswer[1];
        progressUntil(
                () -> {
                    for (int i = 0; i < unclaimed.size(); i++) {
                        if (wanted.test(unclaimed.get(i).notification())) {
                            taken[0] = unclaimed.remove(i);
                            return true;
                        }
                    }
                    return false;
                },
                () -> "no " + description + " within " + timeout + "; unclaimed notifications: "
                        + Notifications.describeAnswers(unclaimed));
        return taken[0];
    }

    /**
     * Waits until {@code count} notifications are unclaimed and takes them, in the order they came.
     *
     * @throws AssertionError when fewer come within the time limit
     */
    public List<WorkerNotification> awaitNotifications(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count " + count + " is negative");
        }
        checkUsable();
        progressUntil(
                () -> unclaimed.size() >= count,
                () -> unclaimed.size() + " of " + count + " notifications within " + timeout + ": "
                        + Notifications.describeAnswers(unclaimed));
        List<WorkerNotification> taken = new ArrayList<>(count);
        unclaimed.subList(0, count).forEach(answer -> taken.add(answer.notification()));
        unclaimed.subList(0, count).clear();
        return taken;
    }

    /**
     * Makes {@code rounds} rounds of progress (of the whole domain) and fails when any notification
     * for this worker is unclaimed afterwards: for a command that must not be answered by the plugin.
     *
     * @throws AssertionError naming the notifications that came
     */
    public void assertNoNotificationAfter(int rounds) {
        if (rounds < 1) {
            throw new IllegalArgumentException("rounds " + rounds + " is not positive");
        }
        checkUsable();
        for (int i = 0; i < rounds; i++) {
            domain.progress();
        }
        if (!unclaimed.isEmpty()) {
            throw new AssertionError(where() + ": expected no notification after " + rounds
                    + " rounds of progress, but got " + Notifications.describeAnswers(unclaimed));
        }
    }

    /**
     * One round of progress of this worker's whole domain; what comes out is kept as unclaimed.
     *
     * @return how many notifications came (to any worker of the domain)
     */
    public int progress() {
        checkUsable();
        return domain.progress();
    }

    /**
     * One round of progress of this worker alone, its peers idle (a test of what a plugin does while
     * its peer does not progress); what comes out is kept as unclaimed.
     *
     * @return how many notifications came
     */
    public int progressAlone() {
        checkUsable();
        return progressOwn();
    }

    /** A state of the plugin that a test waits for; it may fail as the plugin's own calls do. */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws UromException;
    }

    /**
     * Makes progress on the whole domain until {@code condition} holds (a plugin's own state, read
     * through {@link #plugin()}), checked before each round.
     *
     * @param description what is awaited, for the failure message
     * @throws AssertionError when it does not hold within the time limit, or when it throws
     */
    public void awaitCondition(Condition condition, String description) {
        requireNonNull(condition, "condition is null");
        requireNonNull(description, "description is null");
        checkUsable();
        progressUntil(
                () -> {
                    try {
                        return condition.holds();
                    } catch (UromException e) {
                        throw new AssertionError(
                                where() + ": while waiting until " + description + ": " + e.status() + ": "
                                        + e.getMessage(),
                                e);
                    }
                },
                () -> "not within " + timeout + ": " + description + "; unclaimed notifications: "
                        + Notifications.describeAnswers(unclaimed));
    }

    /** Makes progress on the whole domain until {@code done}, checked before each round, or fails with {@code whyNot} after the time limit. */
    private void progressUntil(BooleanSupplier done, Supplier<String> whyNot) {
        long deadline = System.nanoTime() + timeout.toNanos();
        IdleBackoff backoff = new IdleBackoff();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(where() + ": " + whyNot.get());
            }
            backoff.after(domain.progress() == 0);
        }
    }

    /** The notifications that came and no wait took yet, in order (a copy). */
    public List<WorkerNotification> unclaimed() {
        checkUsable();
        return unclaimed.stream().map(WorkerAnswer::notification).toList();
    }

    /** Closes the plugin (and, for a worker opened alone, its domain). Idempotent. */
    @Override
    public void close() {
        if (alone) {
            domain.close();
        } else {
            domain.checkThread();
            closeOwn();
        }
    }

    boolean isClosed() {
        return closed;
    }

    int progressOwn() {
        return closed ? 0 : host.progress(unclaimed::add);
    }

    void closeOwn() {
        if (!closed) {
            closed = true;
            unclaimed.clear();
            try {
                host.close();
            } finally {
                hostProcess.close();
            }
        }
    }

    private void checkUsable() {
        domain.checkThread();
        if (closed) {
            throw new IllegalStateException(where() + " is closed");
        }
    }

    private String where() {
        return "worker " + domainId + " (plugin '" + name + "')";
    }
}
