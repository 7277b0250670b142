// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * What {@code fstat} says about the file an open {@link FileChannel} reads and writes: Java has no
 * such call, and asking by name would describe whatever the name points to by then, not the open
 * file (a host may rename another file over it between the open and the question).
 *
 * <p>How: the channel is moved to a random position of about 2^40 (a regular file takes any
 * position), the one descriptor of this process at that position is found in {@code
 * /proc/self/fdinfo}, and {@code /proc/self/fd/<n>} is stat-ed, which the kernel answers for the
 * open file itself. The channel's own descriptor always matches, so a second match (another
 * descriptor at the same position, by chance) makes the lookup start again with a new position;
 * a unique match is the channel. The position is set back to 0 afterwards. Linux only.
 *
 * <p>Stateless; safe to call from any thread, but not on one channel from two threads at once.
 */
final class OpenFileStatus {
    private static final Path FD_INFO = Path.of("/proc/self/fdinfo");
    private static final Path FD = Path.of("/proc/self/fd");
    private static final long MARK_BASE = 1L << 40;
    private static final int ATTEMPTS = 4;
    private static final int FILE_TYPE_MASK = 0170000;
    private static final int REGULAR_FILE = 0100000;

    /** The file's mode (type and permission bits), owner uid and size in bytes. */
    record Status(int mode, long uid, long size) {
        boolean isRegularFile() {
            return (mode & FILE_TYPE_MASK) == REGULAR_FILE;
        }
    }

    private OpenFileStatus() {}

    /**
     * The status of the file {@code channel} is open on; {@code channel} must be a regular file's.
     *
     * @throws IOException when the channel cannot be positioned or its descriptor not found
     */
    static Status of(FileChannel channel) throws IOException {
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            long mark = MARK_BASE + ThreadLocalRandom.current().nextLong(MARK_BASE);
            channel.position(mark);
            List<Path> found = descriptorsAt(mark);
            if (found.size() == 1) {
                Map<String, Object> attributes = Files.readAttributes(found.get(0), "unix:mode,uid,size");
                channel.position(0);
                return new Status(
                        (Integer) attributes.get("mode"),
                        Integer.toUnsignedLong((Integer) attributes.get("uid")),
                        (Long) attributes.get("size"));
            }
        }
        channel.position(0);
        throw new IOException(
                "cannot tell which descriptor in " + FD_INFO + " is the opened file's (" + ATTEMPTS + " attempts)");
    }

    /** The {@code /proc/self/fd} entries of the descriptors whose position is {@code mark}. */
    private static List<Path> descriptorsAt(long mark) throws IOException {
        String wanted = "pos:\t" + mark + "\n";
        List<Path> found = new ArrayList<>();
        try (Stream<Path> entries = Files.list(FD_INFO)) {
            for (Path entry : (Iterable<Path>) entries::iterator) {
                String info;
                try {
                    info = new String(Files.readAllBytes(entry), StandardCharsets.ISO_8859_1);
                } catch (NoSuchFileException closedMeanwhile) {
                    continue;
                }
                if (info.startsWith(wanted)) {
                    found.add(FD.resolve(entry.getFileName().toString()));
                }
            }
        }
        return found;
    }
}
