// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static java.util.Objects.requireNonNull;

import dev.urom.auth.Principal;
import dev.urom.auth.Proofs;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.process.WorkerLine.Access;
import dev.urom.service.process.WorkerLine.Ending;
import dev.urom.service.process.WorkerLine.Failed;
import dev.urom.service.process.WorkerLine.Ready;
import dev.urom.service.process.WorkerLine.Stats;
import dev.urom.service.process.WorkerLine.StatsRequest;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The codec of the lines on a worker's pipes ({@link WorkerLine}), which the daemon and the worker
 * both use; thread-safe and stateless.
 *
 * <ul>
 *   <li>{@link #encode} gives a line without its line end.
 *   <li>{@link #decode} reads any line back. It throws {@link IllegalArgumentException} with one
 *       line naming the field and the reason (never a key): for a line over {@value
 *       #MAX_LINE_LENGTH} characters, a missing or malformed field, or a bad number; and {@link
 *       UnknownLine} for a line that starts with no verb of the protocol.
 *   <li>{@link #decodeAccess} reads the worker's first line from its bytes and makes no text copy
 *       of the keys (the caller zeroes the bytes).
 * </ul>
 *
 * A FAILED line's status word is read leniently, since the launcher writes FAILED lines too: a
 * word that names no failure status is taken as the start of the reason, with status
 * INITIALIZATION.
 */
public final class WorkerLines {
    /** The longest line either side reads, in characters. */
    public static final int MAX_LINE_LENGTH = 1 << 20;
    /**
     * The bytes a reader keeps of a line that is not a STATS answer (ACCESS, a STATS request, READY,
     * FAILED): those are short, and a longer one is cut to this.
     */
    public static final int MAX_CONTROL_LINE_BYTES = 4096;

    private static final String ACCESS = "ACCESS";
    private static final String READY = "READY";
    private static final String FAILED = "FAILED";
    private static final String STATS = "STATS";
    private static final String ENDING = "ENDING";
    private static final String FINAL = "final";
    private static final String NOT_ACCESS = "the daemon's first line is not ACCESS <owner> <data key> <seal key>";
    private static final HexFormat HEX = HexFormat.of();

    /** A line that starts with no verb of the protocol. */
    public static final class UnknownLine extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnknownLine(String message) {
            super(message);
        }
    }

    private WorkerLines() {}

    /** {@code line} as it goes on the pipe, without its line end. */
    public static String encode(WorkerLine line) {
        requireNonNull(line, "line is null");
        if (line instanceof Access access) {
            WorkerAccess a = access.access();
            return ACCESS + " " + a.owner().text() + " "
                    + a.dataKey().map(HEX::formatHex).orElse("-") + " " + HEX.formatHex(a.sealKey());
        } else if (line instanceof Ready ready) {
            return READY + " " + ready.address();
        } else if (line instanceof Failed failed) {
            return FAILED + " " + failed.status().name() + " " + failed.reason();
        } else if (line instanceof StatsRequest request) {
            return STATS + " " + request.number();
        } else if (line instanceof Stats stats) {
            StringWriter text = new StringWriter()
                    .append(STATS)
                    .append(' ')
                    .append(stats.isFinal() ? FINAL : Long.toString(stats.request()))
                    .append(' ');
            StatsJson.write(stats.snapshot(), text);
            return text.toString();
        } else if (line instanceof Ending) {
            return ENDING;
        }
        throw new IllegalArgumentException(
                "not a worker line: " + line.getClass().getName());
    }

    /**
     * Reads a line (without its line end).
     *
     * @throws UnknownLine when it starts with no verb of the protocol
     * @throws IllegalArgumentException one line naming the field and the reason
     */
    public static WorkerLine decode(String line) {
        requireNonNull(line, "line is null");
        checkLength(line.length(), "characters");
        int space = line.indexOf(' ');
        String verb = space < 0 ? line : line.substring(0, space);
        String rest = space < 0 ? null : line.substring(space + 1);
        return switch (verb) {
            case ACCESS -> new Access(decodeAccess(line.getBytes(StandardCharsets.ISO_8859_1)));
            case READY -> ready(rest);
            case FAILED -> failed(rest);
            case STATS -> stats(rest);
            case ENDING -> ending(rest);
            default -> throw new UnknownLine("not a worker line: it starts with '" + abbreviate(line) + "'");
        };
    }

    /**
     * Reads a line from its bytes (ASCII; without its line end); an ACCESS line's keys are decoded
     * straight from them.
     *
     * @throws UnknownLine when it starts with no verb of the protocol
     * @throws IllegalArgumentException one line naming the field and the reason
     */
    public static WorkerLine decode(byte[] line) {
        checkLength(line.length, "bytes");
        if (startsWith(line, ACCESS + " ")) {
            return new Access(decodeAccess(line));
        }
        return decode(new String(line, StandardCharsets.ISO_8859_1));
    }

    /**
     * Reads the daemon's first line on a worker's stdin, an ACCESS line, from its bytes, decoding
     * the keys straight into their arrays: no text copy of a key is made (the caller zeroes {@code
     * line}).
     *
     * @throws IllegalArgumentException one line saying what is wrong (never the keys)
     */
    public static WorkerAccess decodeAccess(byte[] line) {
        checkLength(line.length, "bytes");
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
        if (count != spaces.length || !new String(line, 0, spaces[0], StandardCharsets.ISO_8859_1).equals(ACCESS)) {
            throw new IllegalArgumentException(NOT_ACCESS);
        }
        Principal owner;
        try {
            owner = Principal.parse(
                    new String(line, spaces[0] + 1, spaces[1] - spaces[0] - 1, StandardCharsets.ISO_8859_1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the owner of the daemon's ACCESS line: " + oneLine(e.getMessage()));
        }
        boolean noDataKey = spaces[2] - spaces[1] == 2 && line[spaces[1] + 1] == '-';
        byte[] dataKey = noDataKey ? null : hex(line, spaces[1] + 1, spaces[2], "data key");
        return WorkerAccess.received(
                owner, Optional.ofNullable(dataKey), hex(line, spaces[2] + 1, line.length, "seal key"));
    }

    private static Ready ready(String rest) {
        if (rest == null || rest.isBlank()) {
            throw new IllegalArgumentException("a READY line without an address");
        }
        try {
            return new Ready(ServiceAddress.parse(rest.strip()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the address of a READY line: " + oneLine(e.getMessage()));
        }
    }

    private static Failed failed(String rest) {
        if (rest == null) {
            throw new IllegalArgumentException("a FAILED line without a status");
        }
        int space = rest.indexOf(' ');
        String statusName = space < 0 ? rest : rest.substring(0, space);
        String reason = space < 0 ? "" : rest.substring(space + 1);
        UromStatus status;
        try {
            status = UromStatus.valueOf(statusName);
        } catch (IllegalArgumentException e) {
            return new Failed(UromStatus.INITIALIZATION, rest);
        }
        return status.isSuccess() ? new Failed(UromStatus.INITIALIZATION, rest) : new Failed(status, reason);
    }

    private static WorkerLine stats(String rest) {
        if (rest == null) {
            throw new IllegalArgumentException("a STATS line without a request number, or a tag and counts");
        }
        int space = rest.indexOf(' ');
        if (space < 0 && isDigits(rest)) {
            try {
                return new StatsRequest(Long.parseLong(rest));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "STATS request number '" + abbreviate(rest) + "' is over " + Long.MAX_VALUE);
            }
        }
        if (space <= 0) {
            throw new IllegalArgumentException("a STATS line without a tag and counts");
        }
        String tag = rest.substring(0, space);
        long request;
        if (tag.equals(FINAL)) {
            request = Stats.FINAL;
        } else {
            request = tagNumber(tag);
        }
        return new Stats(request, StatsJson.read(tag, rest.substring(space + 1)));
    }

    private static long tagNumber(String tag) {
        try {
            if (isDigits(tag)) {
                return Long.parseLong(tag);
            }
        } catch (NumberFormatException e) {
            // over Long.MAX_VALUE: refused below
        }
        throw new IllegalArgumentException(
                "STATS tag '" + abbreviate(tag) + "' is neither a request number nor '" + FINAL + "'");
    }

    private static Ending ending(String rest) {
        if (rest != null) {
            throw new IllegalArgumentException("an ENDING line with something after ENDING");
        }
        return new Ending();
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
            throw new IllegalArgumentException(
                    "the " + what + " has " + digits / 2 + " bytes instead of " + Proofs.MAC_BYTES);
        }
        byte[] bytes = new byte[Proofs.MAC_BYTES];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] =
                    (byte) (Character.digit(line[from + 2 * i], 16) << 4 | Character.digit(line[from + 2 * i + 1], 16));
        }
        return bytes;
    }

    private static void checkLength(int length, String unit) {
        if (length > MAX_LINE_LENGTH) {
            throw new IllegalArgumentException(
                    "a worker line of " + length + " " + unit + " is over the limit of " + MAX_LINE_LENGTH);
        }
    }

    private static boolean startsWith(byte[] line, String prefix) {
        if (line.length < prefix.length()) {
            return false;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (line[i] != prefix.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** Decimal digits, and nothing else (not even another script's digits). */
    private static boolean isDigits(String text) {
        return !text.isEmpty() && text.chars().allMatch(c -> c >= '0' && c <= '9');
    }

    /** {@code text} with its control characters made spaces: one line. */
    static String oneLine(String text) {
        return String.valueOf(text).replaceAll("\\p{Cntrl}", " ");
    }

    private static String abbreviate(String text) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
