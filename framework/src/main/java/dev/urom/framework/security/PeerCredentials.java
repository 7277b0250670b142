// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.security;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.OptionalInt;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The kernel's word on who is at the other end of a Unix socket ({@code SO_PEERCRED}): the uid of
 * the process that connected, as it was when it connected. A peer cannot choose it. Stateless.
 */
public final class PeerCredentials {
    private PeerCredentials() {}

    /**
     * The peer's uid on a connected Unix socket; empty for any other kind of socket.
     *
     * @throws IOException when the kernel does not say (the socket is closed)
     */
    public static OptionalInt uid(SocketChannel socket) throws IOException {
        if (!(socket.getLocalAddress() instanceof UnixDomainSocketAddress)) {
            return OptionalInt.empty();
        }
        UnixDomainPrincipal peer = socket.getOption(ExtendedSocketOptions.SO_PEERCRED);
        OptionalInt uid = UnixAccounts.uidOfPrincipalName(peer.user().getName());
        if (uid.isEmpty()) {
            throw new IOException("the peer's user '" + peer.user().getName() + "' has no uid");
        }
        return uid;
    }
}
