// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.framework.worker.WorkerAnswer.Origin;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class WorkerAnswerTest {
    private static final WorkerCommand COMMAND = new WorkerCommand(3, 0x20, 41, new byte[] {1, 2});

    @Test
    void aPluginsNotificationHasOriginPluginAndNoReasonAndIsPackedByThePlugin() {
        WorkerNotification notification = WorkerNotification.replyTo(COMMAND, UromStatus.SUCCESS, new byte[] {7});

        WorkerAnswer answer = WorkerAnswer.fromPlugin(notification);

        assertThat(answer.notification()).isSameAs(notification);
        assertThat(answer.origin()).isEqualTo(Origin.PLUGIN);
        assertThat(answer.refusalReason()).isEmpty();
        assertThat(answer.madeByWorker()).isFalse();
        assertThat(WorkerAnswer.fromPlugin(WorkerNotification.failure(COMMAND, UromStatus.AGAIN))
                        .madeByWorker())
                .as("a plugin's own failure without payload")
                .isFalse();
    }

    @Test
    void aPluginsRefusalHasOriginPluginRefusalAndItsReason() {
        WorkerAnswer answer = WorkerAnswer.pluginRefusal(COMMAND, UromStatus.INVALID_VALUE, Optional.of("bad command"));

        assertThat(answer.origin()).isEqualTo(Origin.PLUGIN_REFUSAL);
        assertThat(answer.refusalReason()).hasValue("bad command");
        assertThat(answer.madeByWorker()).isTrue();
        assertThat(answer.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(answer.payload()).isEmpty();
        assertThat(answer.uromContext()).isEqualTo(COMMAND.uromContext());
        assertThat(WorkerAnswer.pluginRefusal(COMMAND, UromStatus.UNEXPECTED, Optional.empty())
                        .refusalReason())
                .as("a reason cut to nothing")
                .isEmpty();
    }

    @Test
    void theWorkersOwnRefusalHasOriginWorkerAndNoReason() {
        WorkerAnswer answer = WorkerAnswer.workerRefusal(COMMAND, UromStatus.NOT_FOUND);

        assertThat(answer.origin()).isEqualTo(Origin.WORKER);
        assertThat(answer.refusalReason()).isEmpty();
        assertThat(answer.madeByWorker()).isTrue();
        assertThat(answer.payload()).isEmpty();
    }

    @Test
    void theNotificationsFieldsAreReadThroughTheAnswer() {
        WorkerAnswer answer =
                WorkerAnswer.fromPlugin(WorkerNotification.replyTo(COMMAND, UromStatus.SUCCESS, new byte[] {7}));

        assertThat(answer.destId()).isEqualTo(3);
        assertThat(answer.type()).isEqualTo(0x20);
        assertThat(answer.uromContext()).isEqualTo(41);
        assertThat(answer.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(answer.payload()).containsExactly(7);
    }

    @Test
    void aReasonIsOneToMaxReasonBytesOfUtf8() {
        String longest = "é".repeat(WorkerAnswer.MAX_REASON_BYTES / 2);

        assertThat(WorkerAnswer.pluginRefusal(COMMAND, UromStatus.INVALID_VALUE, Optional.of(longest))
                        .refusalReason())
                .hasValue(longest);
        assertThatThrownBy(
                        () -> WorkerAnswer.pluginRefusal(COMMAND, UromStatus.INVALID_VALUE, Optional.of(longest + "x")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("513");
        assertThatThrownBy(() -> WorkerAnswer.pluginRefusal(COMMAND, UromStatus.INVALID_VALUE, Optional.of("")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void combinationsThatNoHostMakesAreRejected() {
        WorkerNotification success = WorkerNotification.replyTo(COMMAND, UromStatus.SUCCESS, new byte[0]);
        WorkerNotification failureWithPayload =
                WorkerNotification.replyTo(COMMAND, UromStatus.INVALID_VALUE, new byte[] {1});
        WorkerNotification failure = WorkerNotification.failure(COMMAND, UromStatus.INVALID_VALUE);

        assertThatThrownBy(() -> new WorkerAnswer(failure, Origin.PLUGIN, Optional.of("why")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only a plugin's refusal has a reason");
        assertThatThrownBy(() -> new WorkerAnswer(failure, Origin.WORKER, Optional.of("why")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkerAnswer(success, Origin.WORKER, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("failure without payload");
        assertThatThrownBy(() -> new WorkerAnswer(failureWithPayload, Origin.PLUGIN_REFUSAL, Optional.empty()))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorkerAnswer(null, Origin.PLUGIN, Optional.empty()))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new WorkerAnswer(failure, null, Optional.empty()))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new WorkerAnswer(failure, Origin.PLUGIN, null))
                .isInstanceOf(NullPointerException.class);
    }
}
