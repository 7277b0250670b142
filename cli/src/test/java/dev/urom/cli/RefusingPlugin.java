// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.spi.PluginIface;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.HexFormat;
import java.util.List;

/**
 * A Java plugin fixture that refuses every command: a one-byte command 0xff with a RuntimeException,
 * any other with a UromException INVALID_VALUE whose message names the command bytes.
 */
public class RefusingPlugin implements PluginIface {
    /** The message of the refusal of {@code command}'s bytes. */
    public static String message(byte[] command) {
        return "refusing plugin: command " + HexFormat.of().formatHex(command) + " is not one I know";
    }

    @Override
    public void open(WorkerContext context) {}

    @Override
    public void close() {}

    @Override
    public byte[] address() {
        return new byte[0];
    }

    @Override
    public void workerCommand(WorkerCommand command) throws UromException {
        if (command.payload().length == 1 && command.payload()[0] == (byte) 0xff) {
            throw new IllegalStateException("refusing plugin: lost its state");
        }
        throw new UromException(UromStatus.INVALID_VALUE, message(command.payload()));
    }

    @Override
    public void progress(List<? super WorkerNotification> notifications) {}
}
