package dev.urom.plugins.sandbox;

import java.io.IOException;
import java.net.BindException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Creates the listening socket of a plugin instance: {@code urom-sandbox-<pid>-<n>.sock} in a
 * directory, {@code n} counting up from 1 and skipping names already taken (two copies of this
 * class, in two plugin class loaders of one worker, count separately). Thread-safe.
 */
final class SocketFiles {
    private static final AtomicLong NEXT = new AtomicLong(1);
    private static final int ATTEMPTS = 10_000;

    private SocketFiles() {}

    /** The directory of the sockets: {@code java.io.tmpdir}. */
    static Path directory() {
        return Path.of(System.getProperty("java.io.tmpdir", "/tmp")).toAbsolutePath();
    }

    /**
     * A non-blocking server channel bound to a fresh socket file in {@code directory}.
     *
     * @throws IOException when no name could be bound
     */
    static ServerSocketChannel bind(Path directory) throws IOException {
        long pid = ProcessHandle.current().pid();
        IOException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            Path path = directory.resolve("urom-sandbox-" + pid + "-" + NEXT.getAndIncrement() + ".sock");
            if (Files.exists(path)) {
                continue;
            }
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(path));
                server.configureBlocking(false);
                return server;
            } catch (BindException e) {
                server.close();
                last = e;
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        }
        throw new IOException("no free socket name in " + directory + " after " + ATTEMPTS + " attempts", last);
    }
}
