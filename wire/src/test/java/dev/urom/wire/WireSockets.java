// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/** A connected pair of Unix sockets in a test's temporary directory. */
record WireSockets(SocketChannel client, SocketChannel server) implements AutoCloseable {
    static WireSockets open(Path dir) throws IOException {
        ServiceAddress address = ServiceAddress.unix(dir.resolve("pair-" + System.nanoTime() + ".sock"));
        try (ServerSocketChannel listener = address.bind()) {
            SocketChannel client = address.connect();
            return new WireSockets(client, listener.accept());
        }
    }

    @Override
    public void close() throws IOException {
        client.close();
        server.close();
    }
}
