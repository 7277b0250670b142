// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Java plugin for the worker security tests (packed into a jar at test time) that keeps commands
 * in flight: it answers no command until one whose payload is {@link #RELEASE} arrives, from any
 * connection; then it answers every command it holds, in the order they came, and that one last,
 * each with SUCCESS and its own payload. Used by the worker's thread only.
 */
public final class HoldingJavaPlugin implements PluginIface {
    static final byte[] RELEASE = {'r', 'e', 'l', 'e', 'a', 's', 'e'};

    private final List<WorkerCommand> held = new ArrayList<>();
    private final List<WorkerNotification> done = new ArrayList<>();

    @Override
    public void open(WorkerContext context) {}

    @Override
    public void close() {}

    @Override
    public byte[] address() {
        return new byte[] {2};
    }

    @Override
    public void workerCommand(WorkerCommand command) {
        if (!Arrays.equals(command.payload(), RELEASE)) {
            held.add(command);
            return;
        }
        for (WorkerCommand h : held) {
            done.add(WorkerNotification.replyTo(h, UromStatus.SUCCESS, h.payload()));
        }
        held.clear();
        done.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, command.payload()));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        notifications.addAll(done);
        done.clear();
    }
}
