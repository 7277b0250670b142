// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.os.DescriptorInput;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Stands in for a worker that never answers the daemon's {@code STATS} requests: it prints {@code
 * READY <the address of the socket it inherited>}, keeps its stdout open, reads and ignores the
 * daemon's pipe ({@code --daemon-fd}), and exits 0 at EOF (when the daemon ends it).
 */
public final class MuteWorkerMain {
    private MuteWorkerMain() {}

    public static void main(String[] args) throws IOException {
        List<String> arguments = List.of(args);
        InputStream daemon = DescriptorInput.of(Integer.parseInt(arguments.get(arguments.indexOf("--daemon-fd") + 1)));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("READY " + ServiceAddress.of(((ServerSocketChannel) System.inheritedChannel()).getLocalAddress()));
        while (daemon.read() >= 0) {
            // the access line, then STATS lines, left unanswered
        }
        System.exit(0);
    }
}
