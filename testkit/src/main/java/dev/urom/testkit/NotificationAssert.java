// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import static java.util.Objects.requireNonNull;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.spi.Api;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions on one {@link WorkerNotification}; each failure message shows the whole
 * notification (payloads in hex, cut short) and, for payloads, the first byte that differs. Made by
 * {@link PluginAssertions#assertThat(WorkerAnswer)}, which knows who made the notification and why
 * a refused command was refused, or by {@link PluginAssertions#assertThat(WorkerNotification)},
 * which does not: on a bare notification the refusal assertions ({@link #isRefusedWith}, {@link
 * #hasReason}, {@link #hasReasonContaining}) fail.
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public final class NotificationAssert extends AbstractAssert<NotificationAssert, WorkerNotification> {
    /** Who made {@code actual}, and why; empty for a bare notification. */
    private final Optional<WorkerAnswer> answer;

    NotificationAssert(WorkerNotification actual) {
        super(actual, NotificationAssert.class);
        this.answer = Optional.empty();
    }

    NotificationAssert(WorkerAnswer answer) {
        super(answer == null ? null : answer.notification(), NotificationAssert.class);
        this.answer = Optional.ofNullable(answer);
    }

    public NotificationAssert hasStatus(UromStatus expected) {
        requireNonNull(expected, "expected is null");
        isNotNull();
        if (actual.status() != expected) {
            failWithMessage("expected status %s but got %s in %s", expected, actual.status(), described());
        }
        return this;
    }

    /** Status SUCCESS. */
    public NotificationAssert isSuccessful() {
        return hasStatus(UromStatus.SUCCESS);
    }

    /** An answer to {@code command}: the same {@code destId}, {@code type} and {@code uromContext}. */
    public NotificationAssert answers(WorkerCommand command) {
        requireNonNull(command, "command is null");
        isNotNull();
        if (actual.destId() != command.destId()
                || actual.type() != command.type()
                || actual.uromContext() != command.uromContext()) {
            failWithMessage(
                    "expected an answer to %s (same dest, type and context) but got %s",
                    Notifications.describe(command), described());
        }
        return this;
    }

    public NotificationAssert hasPayload(byte[] expected) {
        requireNonNull(expected, "expected is null");
        isNotNull();
        byte[] payload = actual.payload();
        if (!Arrays.equals(payload, expected)) {
            int at = Arrays.mismatch(payload, expected);
            String where = at >= Math.min(payload.length, expected.length)
                    ? "lengths differ: " + payload.length + " bytes, expected " + expected.length
                    : String.format(
                            "first difference at byte %d: 0x%02x, expected 0x%02x", at, payload[at], expected[at]);
            failWithMessage(
                    "expected payload %s but got %s (%s) in %s",
                    Notifications.hex(expected), Notifications.hex(payload), where, described());
        }
        return this;
    }

    /** The payload, in hex (upper or lower case, no separators). */
    public NotificationAssert hasPayloadHex(String expectedHex) {
        requireNonNull(expectedHex, "expectedHex is null");
        return hasPayload(HexFormat.of().parseHex(expectedHex));
    }

    public NotificationAssert hasEmptyPayload() {
        return hasPayload(new byte[0]);
    }

    /**
     * A refusal with this status: the worker's answer to a command that it or the plugin refused
     * (no payload). Its reason is what {@link #hasReasonContaining} reads.
     */
    public NotificationAssert isRefusedWith(UromStatus expected) {
        hasStatus(expected);
        if (answer.isEmpty()) {
            failWithMessage(
                    "expected the worker's refusal with %s but got %s, a bare notification that does not say who made it"
                            + " (assert on the WorkerAnswer that the test kit's waits return)",
                    expected, described());
        }
        if (expected == UromStatus.SUCCESS || !answer.get().madeByWorker()) {
            failWithMessage(
                    "expected the worker's refusal with %s but got %s, which the plugin made", expected, described());
        }
        return this;
    }

    /**
     * A refusal whose reason is exactly {@code expected}: a Java plugin's exception message, or the
     * error a native plugin logged while refusing.
     */
    public NotificationAssert hasReason(String expected) {
        requireNonNull(expected, "expected is null");
        isNotNull();
        Optional<String> reason = answer.flatMap(WorkerAnswer::refusalReason);
        if (!reason.equals(Optional.of(expected))) {
            failWithMessage("expected a refusal with the reason \"%s\" but got %s", expected, reasonOf(reason));
        }
        return this;
    }

    /**
     * A refusal whose reason contains {@code text}: a Java plugin's exception message, or the error a
     * native plugin logged while refusing.
     */
    public NotificationAssert hasReasonContaining(String text) {
        requireNonNull(text, "text is null");
        isNotNull();
        Optional<String> reason = answer.flatMap(WorkerAnswer::refusalReason);
        if (reason.isEmpty() || !reason.get().contains(text)) {
            failWithMessage("expected a refusal whose reason contains \"%s\" but got %s", text, reasonOf(reason));
        }
        return this;
    }

    private String reasonOf(Optional<String> reason) {
        String described = answer.isPresent() ? described() : described() + ", a bare notification";
        return reason.map(r -> "reason \"" + r + "\" in " + described).orElse("no reason in " + described);
    }

    /** The notification for a failure message, with its refusal's reason when it has one. */
    private String described() {
        return answer.map(Notifications::describe).orElseGet(() -> Notifications.describe(actual));
    }
}
