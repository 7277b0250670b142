// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The users whose files MEM_MAP accepts: the worker's own (its effective uid) and, when the daemon
 * set {@value #VARIABLE} (the Unix principal that owns the worker), that user. Immutable; safe to
 * share between threads.
 */
final class FileOwners {
    static final String VARIABLE = "UROM_OWNER_UID";
    /** The largest uid; {@code (uid_t) -1} means "no user". */
    static final long MAX_UID = 4294967294L;

    private static final Path PROCESS_STATUS = Path.of("/proc/self/status");
    private static final int LOGGED_TEXT_MAX = 200;

    private final long workerUid;
    private final OptionalLong principalUid;

    FileOwners(long workerUid, OptionalLong principalUid) {
        this.workerUid = workerUid;
        this.principalUid = requireNonNull(principalUid, "principalUid is null");
    }

    /**
     * The worker's uid and {@value #VARIABLE} as {@code environment} gives it (null: not set).
     *
     * @throws UromException {@code BAD_CONFIG} when the variable is set but is not a decimal uid
     *     (one or more digits, leading zeros allowed, at most {@value #MAX_UID})
     */
    static FileOwners fromEnvironment(Function<String, String> environment, long workerUid) throws UromException {
        String text = environment.apply(VARIABLE);
        if (text == null) {
            return new FileOwners(workerUid, OptionalLong.empty());
        }
        long uid = 0;
        for (int i = 0; i < text.length() && uid <= MAX_UID; i++) {
            char digit = text.charAt(i);
            uid = digit >= '0' && digit <= '9' ? uid * 10 + (digit - '0') : Long.MAX_VALUE;
        }
        if (text.isEmpty() || uid > MAX_UID) {
            String shown = text.length() > LOGGED_TEXT_MAX ? text.substring(0, LOGGED_TEXT_MAX) : text;
            throw new UromException(
                    UromStatus.BAD_CONFIG,
                    VARIABLE + "='" + shown + "' is not a decimal uid (0 to " + MAX_UID
                            + "): the sandbox plugin does not open");
        }
        return new FileOwners(workerUid, OptionalLong.of(uid));
    }

    /**
     * This process's effective uid, from {@code /proc/self/status}.
     *
     * @throws UromException {@code OPERATING_SYSTEM} when it cannot be read
     */
    static long effectiveUid() throws UromException {
        try {
            for (String line : Files.readAllLines(PROCESS_STATUS)) {
                if (line.startsWith("Uid:")) {
                    String[] ids = line.substring("Uid:".length()).trim().split("\\s+");
                    return Long.parseLong(ids[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            throw new UromException(
                    UromStatus.OPERATING_SYSTEM, "cannot read the effective uid from " + PROCESS_STATUS + ": " + e);
        }
        throw new UromException(UromStatus.OPERATING_SYSTEM, PROCESS_STATUS + " has no Uid line");
    }

    boolean accepts(long uid) {
        return uid == workerUid || (principalUid.isPresent() && uid == principalUid.getAsLong());
    }

    /** Who is accepted, for a refusal: "uid 1000 (the worker) and uid 1001 (UROM_OWNER_UID)". */
    String describe() {
        return principalUid.isPresent()
                ? "uid " + workerUid + " (the worker) and uid " + principalUid.getAsLong() + " (" + VARIABLE + ")"
                : "uid " + workerUid + " (the worker; " + VARIABLE + " is not set)";
    }
}
