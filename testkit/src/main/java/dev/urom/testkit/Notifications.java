// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;

/** How the kit writes notifications and commands into its failure messages: one line each, payloads cut short. */
final class Notifications {
    /** Payload bytes shown in hex before the rest is only counted. */
    static final int SHOWN_BYTES = 32;

    private Notifications() {}

    static String describe(WorkerNotification n) {
        return fields(n).append('}').toString();
    }

    /** As a notification, with a refusal's reason after the payload. */
    static String describe(WorkerAnswer answer) {
        StringBuilder text = fields(answer.notification());
        answer.refusalReason()
                .ifPresent(reason -> text.append(", reason \"").append(reason).append('"'));
        return text.append('}').toString();
    }

    private static StringBuilder fields(WorkerNotification n) {
        return new StringBuilder("{dest ")
                .append(Long.toUnsignedString(n.destId()))
                .append(", type 0x")
                .append(Long.toHexString(n.type()))
                .append(", context ")
                .append(Long.toUnsignedString(n.uromContext()))
                .append(", ")
                .append(n.status())
                .append(", payload ")
                .append(hex(n.payload()));
    }

    static String describe(List<WorkerNotification> notifications) {
        return notifications.isEmpty()
                ? "none"
                : notifications.stream().map(Notifications::describe).collect(Collectors.joining(", ", "[", "]"));
    }

    static String describeAnswers(List<WorkerAnswer> answers) {
        return answers.isEmpty()
                ? "none"
                : answers.stream().map(Notifications::describe).collect(Collectors.joining(", ", "[", "]"));
    }

    static String describe(WorkerCommand command) {
        return "{dest " + Long.toUnsignedString(command.destId()) + ", type 0x" + Long.toHexString(command.type())
                + ", context " + Long.toUnsignedString(command.uromContext()) + ", payload " + hex(command.payload())
                + "}";
    }

    /** {@code N bytes HEX}, the hex cut after {@value #SHOWN_BYTES} bytes. */
    static String hex(byte[] bytes) {
        if (bytes.length == 0) {
            return "0 bytes";
        }
        String shown = HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, SHOWN_BYTES));
        return bytes.length + " bytes " + shown + (bytes.length > SHOWN_BYTES ? "..." : "");
    }
}
