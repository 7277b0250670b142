// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A Java plugin for the domain tests (packed into a jar at test time): its address is {@code
 * java-<pid>}; a command holds a u64 domain id and is answered with the address that
 * {@code context.domain().address(id)} gives, or with the look-up's failure status.
 */
public final class DomainPeerJavaPlugin implements PluginIface {
    private final List<WorkerNotification> done = new ArrayList<>();
    private WorkerContext context;

    @Override
    public void open(WorkerContext context) {
        this.context = context;
    }

    @Override
    public void close() {}

    @Override
    public byte[] address() {
        return ("java-" + ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (command.payload().length != 8) {
            throw new UromException(UromStatus.INVALID_VALUE, "a command is one u64 domain id");
        }
        long domainId = ByteBuffer.wrap(command.payload())
                .order(ByteOrder.LITTLE_ENDIAN)
                .getLong();
        try {
            done.add(WorkerNotification.replyTo(
                    command, UromStatus.SUCCESS, context.domain().address(domainId)));
        } catch (UromException e) {
            done.add(WorkerNotification.replyTo(command, e.status(), new byte[0]));
        }
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        notifications.addAll(done);
        done.clear();
    }
}
