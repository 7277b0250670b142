// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.LogManager;

/** A Java plugin for the worker tests (packed into a jar at test time): answers each command with its payload reversed. */
public final class EchoJavaPlugin implements PluginIface {
    private final List<WorkerNotification> done = new ArrayList<>();

    @Override
    public void open(WorkerContext context) {
        LogManager.getLogger("test.java.echo").info("java echo plugin opened");
    }

    @Override
    public void close() {}

    @Override
    public byte[] address() {
        return new byte[] {1};
    }

    @Override
    public void workerCommand(WorkerCommand command) {
        byte[] reversed = new byte[command.payload().length];
        for (int i = 0; i < reversed.length; i++) {
            reversed[i] = command.payload()[reversed.length - 1 - i];
        }
        done.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, reversed));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        notifications.addAll(done);
        done.clear();
    }
}
