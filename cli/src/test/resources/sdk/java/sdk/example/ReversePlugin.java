// SPDX-License-Identifier: Apache-2.0
package sdk.example;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * A Java plugin written outside the repository, as a plugin author would: it answers each command
 * with SUCCESS and the command's bytes in reverse order. Not thread-safe (a worker drives a plugin
 * from one thread).
 */
public final class ReversePlugin implements PluginIface {
    private final Queue<WorkerNotification> answers = new ArrayDeque<>();

    @Override
    public void open(WorkerContext context) {
    }

    @Override
    public void close() {
        answers.clear();
    }

    @Override
    public byte[] address() {
        return new byte[8];
    }

    @Override
    public void workerCommand(WorkerCommand command) {
        answers.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, reverse(command.payload())));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        while (!answers.isEmpty()) {
            notifications.add(answers.remove());
        }
    }

    static byte[] reverse(byte[] bytes) {
        byte[] reversed = new byte[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            reversed[i] = bytes[bytes.length - 1 - i];
        }
        return reversed;
    }
}
