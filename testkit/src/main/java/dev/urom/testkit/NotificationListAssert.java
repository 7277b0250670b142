// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.List;
import org.assertj.core.api.AbstractAssert;

/**
 * AssertJ assertions on notifications in the order they came; failures show every notification.
 * Made by {@link PluginAssertions#assertThatNotifications}.
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public final class NotificationListAssert extends AbstractAssert<NotificationListAssert, List<WorkerNotification>> {
    NotificationListAssert(List<WorkerNotification> actual) {
        super(actual, NotificationListAssert.class);
    }

    /** Exactly these statuses, in this order. */
    public NotificationListAssert hasStatuses(UromStatus... expected) {
        requireNonNull(expected, "expected is null");
        isNotNull();
        List<UromStatus> statuses =
                actual.stream().map(WorkerNotification::status).toList();
        if (!statuses.equals(List.of(expected))) {
            failWithMessage(
                    "expected statuses %s but got %s: %s", List.of(expected), statuses, Notifications.describe(actual));
        }
        return this;
    }

    /** Every one SUCCESS. */
    public NotificationListAssert areAllSuccessful() {
        isNotNull();
        for (int i = 0; i < actual.size(); i++) {
            if (actual.get(i).status() != UromStatus.SUCCESS) {
                failWithMessage(
                        "expected every notification to be SUCCESS but number %d is %s: %s",
                        i, actual.get(i).status(), Notifications.describe(actual));
            }
        }
        return this;
    }

    /** One answer per command, to each in this order (same dest, type and context). */
    public NotificationListAssert answerInOrder(WorkerCommand... commands) {
        requireNonNull(commands, "commands is null");
        isNotNull();
        if (actual.size() != commands.length) {
            failWithMessage(
                    "expected %d answers but got %d: %s",
                    commands.length, actual.size(), Notifications.describe(actual));
        }
        for (int i = 0; i < commands.length; i++) {
            WorkerNotification n = actual.get(i);
            WorkerCommand c = commands[i];
            if (n.destId() != c.destId() || n.type() != c.type() || n.uromContext() != c.uromContext()) {
                failWithMessage(
                        "answer number %d should answer %s but is %s; all: %s",
                        i, Notifications.describe(c), Notifications.describe(n), Notifications.describe(actual));
            }
        }
        return this;
    }
}
