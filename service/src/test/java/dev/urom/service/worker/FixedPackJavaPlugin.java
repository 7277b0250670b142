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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A Java plugin for the worker tests (packed into a jar at test time) that packs the way a DOCA
 * plugin's {@code notif_pack} may: the header as it is, then a fixed 8 bytes, whatever the
 * notification's length. It refuses an empty command with INVALID_VALUE and answers any other
 * with its first 8 bytes.
 */
public final class FixedPackJavaPlugin implements PluginIface {
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
    public void workerCommand(WorkerCommand command) throws UromException {
        if (command.payload().length == 0) {
            throw new UromException(UromStatus.INVALID_VALUE, "an empty command");
        }
        done.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, Arrays.copyOf(command.payload(), 8)));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        notifications.addAll(done);
        done.clear();
    }

    @Override
    public byte[] packNotification(WorkerNotification notification) {
        ByteBuffer packed =
                ByteBuffer.allocate(WorkerNotification.HEADER_BYTES + 8).order(ByteOrder.LITTLE_ENDIAN);
        packed.put(notification.pack(), 0, WorkerNotification.HEADER_BYTES);
        byte[] payload = notification.payload();
        packed.put(Arrays.copyOf(payload, 8));
        return packed.array();
    }
}
