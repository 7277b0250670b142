// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.ArrayList;
import java.util.List;

/**
 * An in-memory Java plugin for tests: answers each command on the next progress with its payload
 * prefixed by {@link #tag}, and counts its opens and closes. Each step can be made to fail by
 * setting the matching {@code fail...} field to the throwable it should throw. Single-threaded.
 */
class EchoPlugin implements PluginIface {
    final String tag;
    final List<WorkerNotification> pending = new ArrayList<>();
    WorkerContext context;
    int opens;
    int closes;
    Throwable failOpen;
    Throwable failCommand;
    /** When set, a command is answered with this status on the next progress and then refused with it too. */
    UromException queueAndFailCommand;

    Throwable failProgress;
    Throwable failClose;

    EchoPlugin(String tag) {
        this.tag = tag;
    }

    @Override
    public void open(WorkerContext workerContext) throws UromException {
        opens++;
        throwIfSet(failOpen);
        context = workerContext;
    }

    @Override
    public void close() {
        closes++;
        if (failClose != null) {
            sneakyThrow(failClose);
        }
    }

    @Override
    public byte[] address() {
        return tag.getBytes();
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        throwIfSet(failCommand);
        if (queueAndFailCommand != null) {
            pending.add(
                    WorkerNotification.replyTo(command, queueAndFailCommand.status(), (tag + ":queued").getBytes()));
            throw queueAndFailCommand;
        }
        byte[] reply = (tag + ":" + new String(command.payload())).getBytes();
        pending.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, reply));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) throws UromException {
        if (!pending.isEmpty()) {
            notifications.add(pending.remove(0));
        }
        throwIfSet(failProgress);
        notifications.addAll(pending);
        pending.clear();
    }

    private static void throwIfSet(Throwable t) throws UromException {
        if (t instanceof UromException e) {
            throw e;
        }
        if (t != null) {
            sneakyThrow(t);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }
}
