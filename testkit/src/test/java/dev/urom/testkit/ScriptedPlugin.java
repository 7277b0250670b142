// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * A Java plugin for the kit's own tests whose answer the command's text chooses: {@code echo X}
 * answers X, {@code twice X} answers twice, {@code silent} not at all, {@code refuse} throws
 * INVALID_VALUE, {@code peer N} answers the address that domain id N publishes. Its address is
 * {@code worker W}, W its worker id.
 */
public final class ScriptedPlugin implements PluginIface {
    private final Queue<WorkerNotification> answers = new ArrayDeque<>();
    private WorkerContext context;

    @Override
    public void open(WorkerContext workerContext) {
        this.context = workerContext;
    }

    @Override
    public void close() {
        answers.clear();
    }

    @Override
    public byte[] address() {
        return ("worker " + context.workerId()).getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        String text = new String(command.payload(), StandardCharsets.US_ASCII);
        String[] words = text.split(" ", 2);
        String argument = words.length > 1 ? words[1] : "";
        switch (words[0]) {
            case "echo" -> answer(command, argument.getBytes(StandardCharsets.US_ASCII));
            case "twice" -> {
                answer(command, argument.getBytes(StandardCharsets.US_ASCII));
                answer(command, argument.getBytes(StandardCharsets.US_ASCII));
            }
            case "silent" -> {}
            case "refuse" -> throw new UromException(UromStatus.INVALID_VALUE, "refused as asked: " + argument);
            case "peer" -> answer(command, context.domain().address(Long.parseLong(argument)));
            default -> throw new UromException(UromStatus.NOT_SUPPORTED, "unknown word '" + words[0] + "'");
        }
    }

    private void answer(WorkerCommand command, byte[] payload) {
        answers.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, payload));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        while (!answers.isEmpty()) {
            notifications.add(answers.remove());
        }
    }
}
