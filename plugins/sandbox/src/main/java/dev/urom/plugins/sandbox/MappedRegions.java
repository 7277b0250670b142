package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * The regions one plugin instance mapped with MEM_MAP, by {@code memh_id} (1, 2, ...; never 0).
 * Each is a shared read-write mapping of a file under a {@link MappableRoots} directory.
 *
 * <p>Not thread-safe: owned by one plugin instance. {@link #clear} drops every mapping (the JVM
 * unmaps it once it is unreachable).
 */
final class MappedRegions {
    private final MappableRoots roots;
    private final Map<Long, MappedByteBuffer> regions = new HashMap<>();
    private long lastId;

    MappedRegions(MappableRoots roots) {
        this.roots = requireNonNull(roots, "roots is null");
    }

    /**
     * Maps {@code length} bytes of the file named by {@code pathBytes}.
     *
     * @return the new region's {@code memh_id}
     * @throws UromException {@code INVALID_VALUE} for an empty path or one with a NUL; {@code
     *     NOT_PERMITTED} outside the roots, with {@code ..}, or not accessible; {@code NOT_FOUND} for a
     *     missing file; {@code INVALID_VALUE} for a file that is not regular, {@code length} 0 or
     *     beyond the file (or beyond 2 GiB, the most one Java mapping holds); {@code
     *     OPERATING_SYSTEM} when mapping fails
     */
    long map(byte[] pathBytes, long length) throws UromException {
        String path = new String(pathBytes, StandardCharsets.UTF_8);
        if (pathBytes.length == 0 || path.indexOf('\0') >= 0) {
            throw new UromException(UromStatus.INVALID_VALUE, "MEM_MAP refused: the path is empty or holds a NUL");
        }
        if (!roots.permits(path)) {
            throw new UromException(UromStatus.NOT_PERMITTED, "MEM_MAP of '" + path + "' refused: only files under "
                    + String.join(", ", roots.roots()) + " may be mapped, and the path may not hold '..'");
        }
        Path file;
        try {
            file = Path.of(path);
        } catch (InvalidPathException e) {
            throw new UromException(UromStatus.NOT_PERMITTED, "MEM_MAP of '" + path + "' refused: " + e.getReason());
        }
        if (!Files.exists(file)) {
            throw new UromException(UromStatus.NOT_FOUND, "MEM_MAP of '" + path + "' refused: no such file");
        }
        if (!Files.isRegularFile(file)) {
            throw new UromException(UromStatus.INVALID_VALUE, "MEM_MAP of '" + path + "' refused: it is not a regular file");
        }
        if (length <= 0 || length > Integer.MAX_VALUE) {
            throw new UromException(UromStatus.INVALID_VALUE, "MEM_MAP of '" + path + "' refused: length "
                    + Long.toUnsignedString(length) + " is not between 1 and " + Integer.MAX_VALUE + " bytes (one Java mapping)");
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            if (size < length) {
                throw new UromException(UromStatus.INVALID_VALUE, "MEM_MAP of '" + path + "' refused: the file is "
                        + size + " bytes, shorter than length " + length);
            }
            MappedByteBuffer region = channel.map(FileChannel.MapMode.READ_WRITE, 0, length);
            long id = ++lastId;
            regions.put(id, region);
            return id;
        } catch (NoSuchFileException e) {
            throw new UromException(UromStatus.NOT_FOUND, "MEM_MAP of '" + path + "' refused: no such file");
        } catch (AccessDeniedException e) {
            throw new UromException(UromStatus.NOT_PERMITTED, "MEM_MAP of '" + path + "' refused: access denied");
        } catch (IOException e) {
            throw new UromException(UromStatus.OPERATING_SYSTEM, "MEM_MAP of '" + path + "' failed: " + e.getMessage());
        }
    }

    /**
     * Checks that {@code [offset, offset + count)} lies inside region {@code memhId}.
     *
     * @throws UromException {@code NOT_FOUND} for an unknown id, {@code INVALID_VALUE} beyond the region
     */
    void check(long memhId, long offset, long count) throws UromException {
        MappedByteBuffer region = region(memhId);
        long end = offset + count;
        if (offset < 0 || count < 0 || end < 0 || end > region.capacity()) {
            throw new UromException(UromStatus.INVALID_VALUE, "buffer " + Long.toUnsignedString(offset) + " + count "
                    + Long.toUnsignedString(count) + " lies beyond region memh_id " + memhId + " of " + region.capacity() + " bytes");
        }
    }

    /** A view of {@code count} bytes at {@code offset} of region {@code memhId}, not a copy; {@link #check} first. */
    ByteBuffer slice(long memhId, long offset, int count) throws UromException {
        return region(memhId).slice((int) offset, count);
    }

    /** Writes {@code data} at {@code offset} of region {@code memhId}; {@link #check} first. */
    void write(long memhId, long offset, byte[] data) throws UromException {
        region(memhId).put((int) offset, data);
    }

    void clear() {
        regions.clear();
    }

    private MappedByteBuffer region(long memhId) throws UromException {
        MappedByteBuffer region = memhId == 0 ? null : regions.get(memhId);
        if (region == null) {
            throw new UromException(UromStatus.NOT_FOUND, "memh_id " + Long.toUnsignedString(memhId) + " is not a mapped region of this plugin");
        }
        return region;
    }
}
