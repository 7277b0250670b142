// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.logging.LogRolling;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * A log file that rolls as {@link LogRolling} says, written a whole line at a time: a line that
 * would take the file past its size goes into a fresh file instead (so a file passes the size only
 * when one line is longer than it), after {@code NAME.1 ... NAME.<count - 2>} are renamed one up,
 * {@code NAME} becomes {@code NAME.1} and the oldest is deleted. Each line is written to the file
 * before {@link #append} returns (no buffering). A new file is created {@code rw-r-----}.
 *
 * <p>Not thread-safe: one writer. When a roll fails half-way the next {@link #append} opens the
 * file again.
 */
final class RollingLogFile implements Closeable {
    private final Path file;
    private final LogRolling rolling;
    private FileChannel channel;
    private long size;

    private RollingLogFile(Path file, LogRolling rolling) {
        this.file = file;
        this.rolling = rolling;
    }

    /** Opens {@code file} for appending (created when missing). */
    static RollingLogFile open(Path file, LogRolling rolling) throws IOException {
        RollingLogFile log = new RollingLogFile(file, rolling);
        log.reopen();
        return log;
    }

    /** Appends {@code line}, which holds one line and its newline. */
    void append(ByteBuffer line) throws IOException {
        if (channel == null) {
            reopen();
        }
        if (size > 0 && size + line.remaining() > rolling.maxFileBytes()) {
            roll();
        }
        while (line.hasRemaining()) {
            size += channel.write(line);
        }
    }

    private void roll() throws IOException {
        channel.close();
        channel = null;
        Files.deleteIfExists(rolled(rolling.maxFiles() - 1));
        for (int index = rolling.maxFiles() - 2; index >= 1; index--) {
            if (Files.exists(rolled(index))) {
                Files.move(rolled(index), rolled(index + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(file, rolled(1), StandardCopyOption.REPLACE_EXISTING);
        reopen();
    }

    private Path rolled(int index) {
        return file.resolveSibling(LogRolling.rolledName(file.getFileName().toString(), index));
    }

    private void reopen() throws IOException {
        channel = FileChannel.open(
                file,
                Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r-----")));
        size = channel.size();
    }

    @Override
    public void close() throws IOException {
        if (channel != null) {
            channel.close();
            channel = null;
        }
    }
}
