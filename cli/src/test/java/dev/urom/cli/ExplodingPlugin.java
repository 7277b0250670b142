// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.spi.PluginIface;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerContext;
import dev.urom.spi.WorkerNotification;
import java.util.List;

/** A Java plugin fixture whose constructor fails, so that it is listed by a scan but cannot load. */
public class ExplodingPlugin implements PluginIface {
    public ExplodingPlugin() {
        throw new IllegalStateException("this plugin refuses to be built");
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
    public void workerCommand(WorkerCommand command) {}

    @Override
    public void progress(List<? super WorkerNotification> notifications) {}
}
