// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.access;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;

/**
 * What a worker is told about who may use it, by the daemon that starts it: its owner, the key
 * the owner's hosts prove on the data channel (key principals only), and the key that seals and
 * checks plugin addresses. It travels as the first line on the worker's stdin pipe, {@code ACCESS
 * <owner> <data key hex or -> <seal key hex>}: never on the command line or in the environment,
 * where other processes of the worker's user could read it.
 *
 * <p>Immutable; {@link #toString()} hides the keys.
 */
public final class WorkerAccess {
    private static final String WORD = "ACCESS";
    private static final HexFormat HEX = HexFormat.of();

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

    /** The line the daemon writes (without its newline). */
    public String line() {
        return WORD + " " + owner.text() + " " + (dataKey == null ? "-" : HEX.formatHex(dataKey)) + " " + HEX.formatHex(sealKey);
    }

    /**
     * Reads {@link #line()} back.
     *
     * @throws IllegalArgumentException one line saying what is wrong (never the keys)
     */
    public static WorkerAccess parse(String line) {
        return parse(line == null ? new byte[0] : line.getBytes(StandardCharsets.ISO_8859_1));
    }

    /**
     * Reads {@link #line()} back from its bytes, decoding the keys straight into their arrays: no
     * text copy of a key is made (the caller zeroes {@code line}).
     *
     * @throws IllegalArgumentException one line saying what is wrong (never the keys)
     */
    public static WorkerAccess parse(byte[] line) {
        int[] spaces = new int[3];
        int count = 0;
        for (int i = 0; i < line.length; i++) {
            if (line[i] == ' ') {
                if (count == spaces.length) {
                    count++;
                    break;
                }
                spaces[count++] = i;
            }
        }
        if (count != spaces.length || !new String(line, 0, spaces[0], StandardCharsets.ISO_8859_1).equals(WORD)) {
            throw new IllegalArgumentException("the daemon's first line is not ACCESS <owner> <data key> <seal key>");
        }
        Principal owner;
        try {
            owner = Principal.parse(new String(line, spaces[0] + 1, spaces[1] - spaces[0] - 1, StandardCharsets.ISO_8859_1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the owner of the daemon's ACCESS line: " + e.getMessage());
        }
        boolean noDataKey = spaces[2] - spaces[1] == 2 && line[spaces[1] + 1] == '-';
        byte[] dataKey = noDataKey ? null : hex(line, spaces[1] + 1, spaces[2], "data key");
        if ((dataKey != null) != (owner.kind() == Principal.Kind.KEY)) {
            throw new IllegalArgumentException("a data key comes with a key principal, and only with one (owner " + owner + ")");
        }
        return new WorkerAccess(owner, dataKey, hex(line, spaces[2] + 1, line.length, "seal key"));
    }

    /** The bytes that the hex digits {@code line[from..to)} spell, exactly {@link Proofs#MAC_BYTES} of them. */
    private static byte[] hex(byte[] line, int from, int to, String what) {
        int digits = to - from;
        boolean hex = digits % 2 == 0;
        for (int i = from; hex && i < to; i++) {
            hex = Character.digit(line[i], 16) >= 0;
        }
        if (!hex) {
            throw new IllegalArgumentException("the " + what + " is not " + Proofs.MAC_BYTES + " bytes of hex");
        }
        if (digits != 2 * Proofs.MAC_BYTES) {
            throw new IllegalArgumentException("the " + what + " has " + digits / 2 + " bytes instead of " + Proofs.MAC_BYTES);
        }
        byte[] bytes = new byte[Proofs.MAC_BYTES];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (Character.digit(line[from + 2 * i], 16) << 4 | Character.digit(line[from + 2 * i + 1], 16));
        }
        return bytes;
    }

    @Override
    public String toString() {
        return "WorkerAccess[owner=" + owner + "]";
    }
}
