// SPDX-License-Identifier: Apache-2.0
package dev.urom.auth;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The cryptography of the handshake and of address seals, all HMAC-SHA256 (the JDK's).
 *
 * <p>Challenge and response: the connecting side sends a fresh 32-byte nonce in HELLO, the accepting
 * side answers CHALLENGE with its own; the client proves it holds the key with {@link #clientProof}
 * over the {@link Transcript} (both nonces, the principal, the role and the channel), and the server
 * answers HELLO_OK with {@link #serverProof} over the same transcript, so each side knows the other
 * holds the key and the key itself never crosses the wire. A fresh nonce on each side makes every
 * proof good for one connection only.
 *
 * <p>Keys by purpose: the control channel (host ↔ daemon) uses the principal's key itself; the data
 * channel (host ↔ worker) uses {@link #dataKey} and address seals {@link #sealKey}, both derived
 * from it, so a worker never holds the key that starts workers.
 *
 * <p>Seals: a worker seals each plugin address it hands out (ADDRESS_REPLY) and accepts in a
 * DOMAIN_SET only addresses whose seal it can verify, that is addresses that a worker of the same
 * principal published. A seal covers the plugin id, the address's transport name and the address.
 *
 * <p>Stateless and thread-safe.
 */
@Api(status = Api.Status.INTERNAL, since = "0.1")
public final class Proofs {
    public static final int NONCE_BYTES = 32;
    public static final int MAC_BYTES = 32;
    private static final String HMAC = "HmacSHA256";
    private static final byte[] LABEL = "urom/2".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The channel a handshake opens; part of the transcript. */
    public enum Channel {
        CONTROL(1),
        DATA(2);

        private final int code;

        Channel(int code) {
            this.code = code;
        }
    }

    /**
     * What both sides' proofs cover.
     *
     * @param role the connecting side's role code (HELLO's {@code role})
     * @param principal the key name the client claims
     */
    public record Transcript(Channel channel, int role, String principal, byte[] clientNonce, byte[] serverNonce) {
        public Transcript {
            requireNonNull(channel, "channel is null");
            requireNonNull(principal, "principal is null");
            requireNonNull(clientNonce, "clientNonce is null");
            requireNonNull(serverNonce, "serverNonce is null");
        }

        byte[] encode(String side) {
            byte[] sideBytes = side.getBytes(StandardCharsets.US_ASCII);
            byte[] name = principal.getBytes(StandardCharsets.UTF_8);
            return ByteBuffer.allocate(LABEL.length
                            + 1
                            + sideBytes.length
                            + 1
                            + 2
                            + 2
                            + name.length
                            + 4
                            + clientNonce.length
                            + 4
                            + serverNonce.length)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .put(LABEL)
                    .put((byte) sideBytes.length)
                    .put(sideBytes)
                    .put((byte) channel.code)
                    .putShort((short) role)
                    .putShort((short) name.length)
                    .put(name)
                    .putInt(clientNonce.length)
                    .put(clientNonce)
                    .putInt(serverNonce.length)
                    .put(serverNonce)
                    .array();
        }
    }

    private Proofs() {}

    /** A fresh random nonce. */
    public static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /** A fresh random secret of {@code bytes} bytes (a daemon's own secret for seals of Unix principals). */
    public static byte[] randomSecret(int bytes) {
        byte[] secret = new byte[bytes];
        RANDOM.nextBytes(secret);
        return secret;
    }

    /** The MAC key of a control-channel handshake: the principal's key. */
    public static byte[] controlKey(AuthKey key) {
        return key.secret().clone();
    }

    /** The MAC key of a data-channel handshake, derived from the principal's key. */
    public static byte[] dataKey(AuthKey key) {
        return hmac(key.secret(), bytes("data-channel key " + key.principal().text()));
    }

    /** The seal key of the workers of a key principal, derived from its key (the same on every daemon). */
    public static byte[] sealKey(AuthKey key) {
        return hmac(key.secret(), bytes("address-seal key " + key.principal().text()));
    }

    /** The seal key of the workers of {@code principal} at a daemon whose own secret is {@code daemonSecret}. */
    public static byte[] sealKey(byte[] daemonSecret, Principal principal) {
        return hmac(daemonSecret, bytes("address-seal key " + principal.text()));
    }

    /** The client's proof over {@code transcript}. */
    public static byte[] clientProof(byte[] macKey, Transcript transcript) {
        return hmac(macKey, transcript.encode("client"));
    }

    /** The server's proof over {@code transcript}. */
    public static byte[] serverProof(byte[] macKey, Transcript transcript) {
        return hmac(macKey, transcript.encode("server"));
    }

    /** The seal of the address plugin {@code pluginId} published without a transport name. */
    public static byte[] seal(byte[] sealKey, long pluginId, byte[] address) {
        return seal(sealKey, pluginId, "", address);
    }

    /**
     * The seal of the address plugin {@code pluginId} published, with the name of its transport
     * ({@code ""}: none): the seal covers both, so a host can relabel neither. The transport name
     * is length-prefixed, so no (transport, address) pair seals like another.
     */
    public static byte[] seal(byte[] sealKey, long pluginId, String transport, byte[] address) {
        byte[] name = transport.getBytes(StandardCharsets.UTF_8);
        byte[] message = ByteBuffer.allocate(LABEL.length + 8 + 2 + name.length + address.length)
                .order(ByteOrder.LITTLE_ENDIAN)
                .put(LABEL)
                .putLong(pluginId)
                .putShort((short) name.length)
                .put(name)
                .put(address)
                .array();
        return hmac(sealKey, message);
    }

    /** Whether two MACs are equal, in time that does not depend on where they differ. */
    public static boolean same(byte[] expected, byte[] given) {
        return given != null && MessageDigest.isEqual(expected, given);
    }

    private static byte[] bytes(String text) {
        byte[] label = text.getBytes(StandardCharsets.US_ASCII);
        return ByteBuffer.allocate(LABEL.length + label.length)
                .put(LABEL)
                .put(label)
                .array();
    }

    private static byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac.doFinal(message);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no " + HMAC + ": " + e.getMessage(), e);
        }
    }
}
