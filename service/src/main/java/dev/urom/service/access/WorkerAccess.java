// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.access;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * What a worker is told about who may use it, by the daemon that starts it: its owner, the key
 * the owner's hosts prove on the data channel (key principals only), and the key that seals and
 * checks plugin addresses. It travels as the first line on the worker's stdin pipe ({@link
 * dev.urom.service.process.WorkerLine.Access}).
 *
 * <p>Immutable; {@link #toString()} hides the keys.
 */
public final class WorkerAccess {
    private final Principal owner;
    private final byte[] dataKey;
    private final byte[] sealKey;

    private WorkerAccess(Principal owner, byte[] dataKey, byte[] sealKey) {
        this.owner = owner;
        this.dataKey = dataKey;
        this.sealKey = sealKey;
    }

    /**
     * The access of a worker started by {@code owner}.
     *
     * @param key the owner's key, for a key principal (its hosts prove keys derived from it)
     * @param daemonSecret the daemon's own secret, from which the seal key of a principal without a
     *     key (a Unix user, anonymous) is derived
     */
    public static WorkerAccess of(Principal owner, Optional<AuthKey> key, byte[] daemonSecret) {
        requireNonNull(owner, "owner is null");
        if (owner.kind() == Principal.Kind.KEY) {
            AuthKey k = key.orElseThrow(() -> new IllegalArgumentException(owner + " has no key"));
            return new WorkerAccess(owner, Proofs.dataKey(k), Proofs.sealKey(k));
        }
        return new WorkerAccess(owner, null, Proofs.sealKey(daemonSecret, owner));
    }

    /** The worker's owner. */
    public Principal owner() {
        return owner;
    }

    /** The data-channel key of a key principal's worker. */
    public Optional<byte[]> dataKey() {
        return Optional.ofNullable(dataKey).map(byte[]::clone);
    }

    public byte[] sealKey() {
        return sealKey.clone();
    }

    /**
     * The access a worker read from its daemon's ACCESS line; takes the arrays as they are (the
     * caller keeps no other reference to them).
     *
     * @param dataKey present for a key principal, and only for one
     * @throws IllegalArgumentException one line saying what is wrong (never the keys)
     */
    public static WorkerAccess received(Principal owner, Optional<byte[]> dataKey, byte[] sealKey) {
        requireNonNull(owner, "owner is null");
        if (dataKey.isPresent() != (owner.kind() == Principal.Kind.KEY)) {
            throw new IllegalArgumentException(
                    "a data key comes with a key principal, and only with one (owner " + owner + ")");
        }
        dataKey.ifPresent(k -> checkLength(k, "data key"));
        checkLength(requireNonNull(sealKey, "sealKey is null"), "seal key");
        return new WorkerAccess(owner, dataKey.orElse(null), sealKey);
    }

    private static void checkLength(byte[] key, String what) {
        if (key.length != Proofs.MAC_BYTES) {
            throw new IllegalArgumentException(
                    "the " + what + " has " + key.length + " bytes instead of " + Proofs.MAC_BYTES);
        }
    }

    /** Equal when the owners and both keys are (the keys compared in constant time). */
    @Override
    public boolean equals(Object other) {
        return other instanceof WorkerAccess that
                && owner.equals(that.owner)
                && MessageDigest.isEqual(sealKey, that.sealKey)
                && (dataKey == null
                        ? that.dataKey == null
                        : that.dataKey != null && MessageDigest.isEqual(dataKey, that.dataKey));
    }

    @Override
    public int hashCode() {
        return owner.hashCode();
    }

    @Override
    public String toString() {
        return "WorkerAccess[owner=" + owner + "]";
    }
}
