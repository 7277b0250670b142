// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import dev.urom.spi.Api;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Map;

/**
 * Where a service or worker listens: {@code unix:/absolute/path} or {@code tcp:HOST:PORT} (an IPv6
 * host in brackets: {@code tcp:[::1]:7300}). {@link #toString()} gives the text back.
 *
 * <p>{@link #defaultListen()} is where the daemon listens when told nothing:
 * <ul>
 *   <li>in Kubernetes (environment variable {@code KUBERNETES_SERVICE_HOST} set):
 *       {@code tcp:0.0.0.0:7300};
 *   <li>as root: {@code unix:/run/urom/urom.sock};
 *   <li>otherwise {@code unix:$XDG_RUNTIME_DIR/urom/urom.sock}, or, without
 *       {@code XDG_RUNTIME_DIR}, {@code unix:<java.io.tmpdir>/urom-<user>/urom/urom.sock}.
 * </ul>
 *
 * <p>Immutable and thread-safe. Exactly one of {@code unixPath} and {@code host} is non-null;
 * {@code port} is 0 for a Unix address.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public record ServiceAddress(Path unixPath, String host, int port) {
    /** TCP port of the daemon in Kubernetes. */
    public static final int DEFAULT_TCP_PORT = 7300;
    /** Longest Unix socket path in bytes ({@code sun_path} is 108 bytes with its NUL). */
    public static final int UNIX_PATH_MAX_BYTES = 107;

    public ServiceAddress {
        if ((unixPath == null) == (host == null)) {
            throw new IllegalArgumentException(
                    "a service address is either a Unix path or a TCP host, not both or neither");
        }
        if (unixPath != null) {
            if (!unixPath.isAbsolute()) {
                throw new IllegalArgumentException("unix socket path '" + unixPath + "' is not absolute");
            }
            int bytes = unixPath.toString().getBytes(StandardCharsets.UTF_8).length;
            if (bytes > UNIX_PATH_MAX_BYTES) {
                throw new IllegalArgumentException("unix socket path '" + unixPath + "' is " + bytes
                        + " bytes; the limit is " + UNIX_PATH_MAX_BYTES);
            }
            if (port != 0) {
                throw new IllegalArgumentException("a Unix address has no port");
            }
        } else {
            if (host.isEmpty()) {
                throw new IllegalArgumentException("tcp host is empty");
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("tcp port " + port + " is out of range (0..65535)");
            }
        }
    }

    public static ServiceAddress unix(Path path) {
        return new ServiceAddress(path, null, 0);
    }

    public static ServiceAddress tcp(String host, int port) {
        return new ServiceAddress(null, host, port);
    }

    /**
     * The address of a bound socket: {@code unix:} its path, or {@code tcp:} its host (as a literal)
     * and port.
     *
     * @throws IllegalArgumentException for a socket of another family, or an unbound one
     */
    public static ServiceAddress of(SocketAddress bound) {
        if (bound instanceof UnixDomainSocketAddress unixAddress
                && unixAddress.getPath().isAbsolute()) {
            return unix(unixAddress.getPath());
        }
        if (bound instanceof InetSocketAddress inet && inet.getAddress() != null) {
            String host = inet.getAddress().getHostAddress();
            int zone = host.indexOf('%');
            return tcp(zone < 0 ? host : host.substring(0, zone), inet.getPort());
        }
        throw new IllegalArgumentException(
                "socket address " + bound + " is neither a bound Unix path nor a TCP address");
    }

    /**
     * Parses {@code unix:/absolute/path} or {@code tcp:HOST:PORT}.
     *
     * @throws IllegalArgumentException one line naming the text and what is wrong with it
     */
    public static ServiceAddress parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("service address is missing");
        }
        try {
            if (text.startsWith("unix:")) {
                String path = text.substring(5);
                if (path.isEmpty()) {
                    throw new IllegalArgumentException("the path is empty");
                }
                if (!path.startsWith("/")) {
                    throw new IllegalArgumentException("the path is not absolute");
                }
                return unix(Path.of(path));
            }
            if (text.startsWith("tcp:")) {
                return parseTcp(text.substring(4));
            }
            throw new IllegalArgumentException("it starts with neither 'unix:' nor 'tcp:'");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("service address '" + text + "' is invalid: " + e.getMessage(), e);
        }
    }

    private static ServiceAddress parseTcp(String rest) {
        String host;
        String port;
        if (rest.startsWith("[")) {
            int close = rest.indexOf(']');
            if (close < 0) {
                throw new IllegalArgumentException("the '[' of the host has no ']'");
            }
            host = rest.substring(1, close);
            if (!host.contains(":")) {
                throw new IllegalArgumentException("brackets are only for an IPv6 host");
            }
            if (close + 1 >= rest.length() || rest.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("the port is missing (tcp:HOST:PORT)");
            }
            port = rest.substring(close + 2);
        } else {
            int colon = rest.lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("the port is missing (tcp:HOST:PORT)");
            }
            host = rest.substring(0, colon);
            port = rest.substring(colon + 1);
            if (host.contains(":")) {
                throw new IllegalArgumentException("an IPv6 host must be in brackets (tcp:[::1]:7300)");
            }
            if (host.contains("[") || host.contains("]")) {
                throw new IllegalArgumentException("the host has a stray bracket");
            }
        }
        if (host.isEmpty()) {
            throw new IllegalArgumentException("the host is empty");
        }
        if (port.isEmpty() || port.length() > 5 || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("port '" + port + "' is not a number from 0 to 65535");
        }
        int number = Integer.parseInt(port);
        if (number > 65535) {
            throw new IllegalArgumentException("port " + number + " is out of range (0..65535)");
        }
        return tcp(host, number);
    }

    /** Where the daemon listens when no address is given (see the class comment). */
    public static ServiceAddress defaultListen() {
        return defaultListen(
                System.getenv(),
                isRoot(),
                System.getProperty("user.name", "unknown"),
                System.getProperty("java.io.tmpdir"));
    }

    static ServiceAddress defaultListen(Map<String, String> env, boolean root, String user, String tmpdir) {
        if (env.get("KUBERNETES_SERVICE_HOST") != null) {
            return tcp("0.0.0.0", DEFAULT_TCP_PORT);
        }
        if (root) {
            return unix(Path.of("/run/urom/urom.sock"));
        }
        String runtime = env.get("XDG_RUNTIME_DIR");
        Path base = runtime != null && !runtime.isEmpty() ? Path.of(runtime) : Path.of(tmpdir, "urom-" + user);
        return unix(base.toAbsolutePath().resolve("urom").resolve("urom.sock"));
    }

    private static boolean isRoot() {
        try {
            return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | ClassCastException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    public boolean isUnix() {
        return unixPath != null;
    }

    /** The socket file. @throws IllegalStateException for a TCP address */
    @Override
    public Path unixPath() {
        if (unixPath == null) {
            throw new IllegalStateException(this + " is not a Unix socket address");
        }
        return unixPath;
    }

    /** The TCP host. @throws IllegalStateException for a Unix address */
    @Override
    public String host() {
        if (host == null) {
            throw new IllegalStateException(this + " is not a TCP address");
        }
        return host;
    }

    /** The TCP port (0: any). @throws IllegalStateException for a Unix address */
    @Override
    public int port() {
        if (host == null) {
            throw new IllegalStateException(this + " is not a TCP address");
        }
        return port;
    }

    private SocketAddress socketAddress() {
        return isUnix() ? UnixDomainSocketAddress.of(unixPath) : new InetSocketAddress(host, port);
    }

    /** A blocking socket connected to this address (TCP with {@code TCP_NODELAY}); a host name is looked up once. */
    public SocketChannel connect() throws IOException {
        SocketAddress to;
        StandardProtocolFamily family;
        if (isUnix()) {
            to = UnixDomainSocketAddress.of(unixPath);
            family = StandardProtocolFamily.UNIX;
        } else {
            InetSocketAddress resolved = resolved();
            to = resolved;
            family = resolved.getAddress() instanceof java.net.Inet6Address
                    ? StandardProtocolFamily.INET6
                    : StandardProtocolFamily.INET;
        }
        SocketChannel ch = SocketChannel.open(family);
        try {
            if (!isUnix()) {
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            }
            ch.connect(to);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    private InetSocketAddress resolved() throws IOException {
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new IOException("cannot resolve host '" + host + "'");
        }
        return a;
    }

    /**
     * A server socket bound to this address. For a Unix address the parent directory is created
     * when missing; an existing socket file that nobody answers on (left by a process that died)
     * is removed first.
     *
     * @throws IOException "PATH is in use by a live service" when something answers on the
     *     socket file, "PATH exists and is not a socket" for any other file there, or what the
     *     system says
     */
    public ServerSocketChannel bind() throws IOException {
        if (!isUnix()) {
            ServerSocketChannel server = ServerSocketChannel.open();
            try {
                server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
                server.bind(socketAddress());
                return server;
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        }
        Path parent = unixPath.getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        if (Files.exists(unixPath, LinkOption.NOFOLLOW_LINKS)) {
            removeStaleSocket();
        }
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(socketAddress());
            return server;
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    private void removeStaleSocket() throws IOException {
        if (!isSocketFile(unixPath)) {
            throw new IOException(unixPath + " exists and is not a socket");
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(socketAddress());
        } catch (ConnectException refused) {
            Files.deleteIfExists(unixPath);
            return;
        }
        throw new IOException(unixPath + " is in use by a live service");
    }

    private static boolean isSocketFile(Path p) throws IOException {
        try {
            int mode = (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return Files.readAttributes(p, java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
                    .isOther();
        }
    }

    /** This address with the port the server actually got (for a TCP address asking port 0). */
    public ServiceAddress boundTo(ServerSocketChannel server) throws IOException {
        if (isUnix()) {
            return this;
        }
        SocketAddress local = server.getLocalAddress();
        if (!(local instanceof InetSocketAddress inet)) {
            throw new IOException("server socket is not bound to a TCP address");
        }
        return tcp(host, inet.getPort());
    }

    /**
     * This address as a peer that reached us at {@code local} can use it: a TCP address on a
     * wildcard host (0.0.0.0, ::) gets {@code local}'s host instead, so that a worker listening on
     * every interface is announced at the interface the host came in on. Other addresses are
     * returned as they are.
     */
    public ServiceAddress reachableVia(InetAddress local) {
        if (isUnix() || local == null || local.isAnyLocalAddress() || !isWildcard(host)) {
            return this;
        }
        String reached = local.getHostAddress();
        int zone = reached.indexOf('%');
        return tcp(zone < 0 ? reached : reached.substring(0, zone), port);
    }

    private static boolean isWildcard(String host) {
        try {
            return (host.equals("0.0.0.0") || host.contains(":"))
                    && InetAddress.getByName(host).isAnyLocalAddress();
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        if (isUnix()) {
            return "unix:" + unixPath;
        }
        return "tcp:" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
