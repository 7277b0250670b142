// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.logging.LogText;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A closed range of uids, {@code FIRST-LAST} ({@code --worker-uid-range}): where a root daemon takes
 * the uid of each principal's workers that has no account of its own. Each uid also serves as the
 * gid of the same number. Immutable.
 *
 * @param first the lowest uid, at least 1 (root is never in a range)
 * @param last the highest uid, at least {@code first}, at most {@value #MAX_ID} ({@code (uid_t) -1}
 *     means "no change" to the kernel)
 */
public record UidRange(long first, long last) {
    /** The highest id a range may hold. */
    public static final long MAX_ID = 0xFFFFFFFEL;

    /**
     * The default: 65,536 uids from 0x70000000, a block that systemd's table of uid ranges leaves to
     * nobody (above the containers' ranges, below the foreign range) and that no distribution hands
     * out to accounts.
     */
    public static final UidRange DEFAULT = new UidRange(0x70000000L, 0x7000FFFFL);

    private static final Pattern SYNTAX = Pattern.compile("([0-9]{1,10})-([0-9]{1,10})");

    public UidRange {
        if (first < 1 || last > MAX_ID || first > last) {
            throw new IllegalArgumentException("--worker-uid-range " + first + "-" + last
                    + " is not a range of uids FIRST-LAST with 1 <= FIRST <= LAST <= " + MAX_ID);
        }
    }

    /**
     * Reads {@code FIRST-LAST}.
     *
     * @throws IllegalArgumentException one line naming the option and the text
     */
    public static UidRange parse(String text) {
        Matcher matcher = SYNTAX.matcher(text == null ? "" : text);
        if (!matcher.matches()) {
            throw new IllegalArgumentException("--worker-uid-range '" + LogText.cut(text)
                    + "' is not FIRST-LAST (two decimal uids, e.g. " + DEFAULT + ")");
        }
        return new UidRange(Long.parseLong(matcher.group(1)), Long.parseLong(matcher.group(2)));
    }

    /** How many uids the range holds. */
    public long size() {
        return last - first + 1;
    }

    /** Whether {@code uid} (an unsigned 32-bit id in an {@code int}) lies in the range. */
    public boolean contains(int uid) {
        long id = Integer.toUnsignedLong(uid);
        return id >= first && id <= last;
    }

    @Override
    public String toString() {
        return first + "-" + last;
    }
}
