// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import com.sun.jna.Function;
import dev.urom.spi.HostProcess;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The Java twin of the host-process fixture (packed into a jar at test time): a command of 8 bytes,
 * a dest id (0: the command's own), is answered with what {@link WorkerContext#hostProcess} said
 * for it, as two little-endian int32: the status code, then the pid (0 unless SUCCESS). The pidfd
 * is closed at once (libc's close through JNA, which the worker's class path holds).
 */
public final class HostProcessJavaPlugin implements PluginIface {
    private final List<WorkerNotification> done = new ArrayList<>();
    private WorkerContext context;

    @Override
    public void open(WorkerContext workerContext) {
        context = workerContext;
    }

    @Override
    public void close() {}

    @Override
    public byte[] address() {
        return new byte[0];
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (command.payload().length != 8) {
            throw new UromException(UromStatus.INVALID_VALUE, "a command is one dest id of 8 bytes");
        }
        long asked = ByteBuffer.wrap(command.payload())
                .order(ByteOrder.LITTLE_ENDIAN)
                .getLong();
        UromStatus status = UromStatus.SUCCESS;
        int pid = 0;
        try {
            HostProcess process = context.hostProcess(asked == 0 ? command.destId() : asked);
            pid = process.pid();
            Function.getFunction("c", "close").invokeInt(new Object[] {process.pidfd()});
        } catch (UromException e) {
            status = e.status();
        }
        byte[] answer = ByteBuffer.allocate(8)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt(status.code())
                .putInt(pid)
                .array();
        done.add(WorkerNotification.replyTo(command, UromStatus.SUCCESS, answer));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {
        notifications.addAll(done);
        done.clear();
    }
}
