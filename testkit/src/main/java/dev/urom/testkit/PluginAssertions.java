// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.spi.Api;
import dev.urom.spi.WorkerNotification;
import java.util.List;
import org.assertj.core.api.Assertions;

/**
 * AssertJ's {@link Assertions} with the kit's assertions on notifications: {@code import static
 * dev.urom.testkit.PluginAssertions.*} gives a plugin's test both.
 *
 * <pre>{@code
 * assertThat(worker.call(command)).isSuccessful().hasPayload(expected);
 * assertThatNotifications(worker.awaitNotifications(3)).answerInOrder(first, second, third);
 * }</pre>
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public class PluginAssertions extends Assertions {
    protected PluginAssertions() {}

    /**
     * Assertions on one notification that the kit's waits returned: status, payload, which command
     * it answers, whether the worker refused the command and why.
     */
    public static NotificationAssert assertThat(WorkerAnswer actual) {
        return new NotificationAssert(actual);
    }

    /**
     * Assertions on one bare notification: status, payload, which command it answers. A bare
     * notification does not say who made it, so the refusal assertions fail on it.
     */
    public static NotificationAssert assertThat(WorkerNotification actual) {
        return new NotificationAssert(actual);
    }

    /** Assertions on notifications in the order they came. */
    public static NotificationListAssert assertThatNotifications(List<WorkerNotification> actual) {
        return new NotificationListAssert(actual);
    }
}
