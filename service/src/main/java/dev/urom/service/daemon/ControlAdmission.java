// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.framework.auth.KeyDirectory;
import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.Hello;
import dev.urom.wire.Role;
import dev.urom.wire.ServerHandshake;
import dev.urom.wire.ServerHandshake.Decision;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Who may open a control connection to the daemon. A host that claims no key is the Unix user the
 * kernel says connected (a Unix socket), or, on TCP, refused unless the operator opened the
 * listener with {@code --insecure-tcp} (then anonymous). A host that claims a key must prove the key
 * of that name in the daemon's key directory; an unknown name is challenged like a known one, so
 * the client cannot tell them apart. Only hosts: a peer announcing another role is refused.
 *
 * <p>Thread-safe (the key directory is); {@link #forConnection} makes one connection's admission,
 * which remembers the key it had the peer prove.
 */
final class ControlAdmission {
    private static final int UNKNOWN_KEY_BYTES = 32;

    private final KeyDirectory keys;
    private final boolean insecureTcp;

    /**
     * @param keys the daemon's keys; null when it has none
     * @param insecureTcp whether TCP hosts without a key are let in, as anonymous
     */
    ControlAdmission(KeyDirectory keys, boolean insecureTcp) {
        this.keys = keys;
        this.insecureTcp = insecureTcp;
    }

    /**
     * The admission of one connection.
     *
     * @param peerUid the connecting process's uid on a Unix socket; empty on TCP
     */
    Connection forConnection(OptionalInt peerUid) {
        return new Connection(peerUid);
    }

    /** One connection's admission. Not thread-safe: used by its connection's thread. */
    final class Connection implements ServerHandshake.Admission {
        private final OptionalInt peerUid;
        private AuthKey provedKey;

        private Connection(OptionalInt peerUid) {
            this.peerUid = peerUid;
        }

        @Override
        public Decision decide(Hello hello) {
            if (hello.role() != Role.HOST) {
                return new Decision.Refuse(
                        UromStatus.NOT_PERMITTED,
                        "the daemon serves hosts; this connection said it is a " + hello.role());
            }
            String name = hello.principal();
            if (name.isEmpty()) {
                if (peerUid.isPresent()) {
                    return new Decision.Admit(Principal.unix(peerUid.getAsInt()));
                }
                if (insecureTcp) {
                    return new Decision.Admit(Principal.ANONYMOUS);
                }
                return new Decision.Refuse(
                        UromStatus.AUTHENTICATION,
                        "this daemon admits TCP hosts that prove a key: give one with --auth-key-file or "
                                + AuthKey.ENVIRONMENT_VARIABLE);
            }
            if (keys == null) {
                return new Decision.Refuse(
                        UromStatus.AUTHENTICATION,
                        peerUid.isPresent()
                                ? "this daemon has no keys: connect without a key (unset "
                                        + AuthKey.ENVIRONMENT_VARIABLE
                                        + ", no --auth-key-file) to be known by your Unix user"
                                : "this daemon has no keys");
            }
            if (!Principal.KEY_NAME.matcher(name).matches()) {
                return new Decision.Refuse(UromStatus.AUTHENTICATION, "the key name claimed is not a valid key name");
            }
            Optional<AuthKey> key = keys.lookup(name);
            if (key.isEmpty()) {
                return new Decision.ProveKey(
                        Principal.key(name),
                        Proofs.randomSecret(UNKNOWN_KEY_BYTES),
                        "the key directory " + keys.directory() + " has no usable key for it");
            }
            provedKey = key.get();
            return new Decision.ProveKey(provedKey.principal(), Proofs.controlKey(provedKey), null);
        }

        /** The key the peer was asked to prove (once the handshake is OPEN, the one it proved). */
        Optional<AuthKey> key() {
            return Optional.ofNullable(provedKey);
        }
    }
}
