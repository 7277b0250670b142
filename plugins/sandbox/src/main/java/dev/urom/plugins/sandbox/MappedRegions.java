// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The regions one plugin instance mapped with MEM_MAP, by {@code memh_id} (1, 2, ...; never 0).
 * Each is a file below a {@link MappableRoots} root, opened by {@link ConfinedFiles} and owned by
 * one of {@link FileOwners}, mapped shared read-write; its channel stays open.
 *
 * <p>Bytes move with positional reads and writes of the channel, never by touching the mapping, so
 * a file that shrinks after MEM_MAP fails the copy with {@code IO_FAILED} instead of faulting: a
 * write checks the file's size first, a read that meets the end of the file fails. On hugetlbfs,
 * which has no {@code write}, bytes go into the mapping by a {@link KernelCopy}, whose fault is an
 * {@link IOException} too.
 *
 * <p>The owner is read from the opened file itself ({@link OpenFileStatus}): a name can be made to
 * point at another file between the open and a question asked by name, an open descriptor cannot.
 *
 * <p>Not thread-safe: owned by one plugin instance. {@link #clear} closes every channel and drops
 * every mapping (the JVM unmaps it once it is unreachable).
 */
final class MappedRegions {
    /** The most one read or write of a channel moves: the JDK copies heap bytes through a direct buffer that large. */
    private static final int IO_CHUNK = 1 << 20;

    private final Supplier<MappableRoots> roots;
    private final FileOwners owners;
    private final Map<Long, Region> regions = new HashMap<>();
    private long lastId;

    private record Region(FileChannel file, MappedByteBuffer mapping, boolean hugetlbfs) {
        int length() {
            return mapping.capacity();
        }
    }

    /** {@code roots} is asked at each MEM_MAP (mounts come and go). */
    MappedRegions(Supplier<MappableRoots> roots, FileOwners owners) {
        this.roots = requireNonNull(roots, "roots is null");
        this.owners = requireNonNull(owners, "owners is null");
    }

    /**
     * Maps {@code length} bytes of the file named by {@code pathBytes}.
     *
     * @return the new region's {@code memh_id}
     * @throws UromException {@code INVALID_VALUE} for an empty path or one with a NUL; {@code
     *     NOT_PERMITTED} outside the roots or with {@code ..}; then the refusals of {@link
     *     ConfinedFiles}; then {@code NOT_PERMITTED} for a file whose owner {@link FileOwners} does
     *     not accept; {@code INVALID_VALUE} for {@code length} 0, beyond the file, or beyond 2 GiB
     *     (the most one Java mapping holds); {@code OPERATING_SYSTEM} when mapping fails
     */
    long map(byte[] pathBytes, long length) throws UromException {
        String path = new String(pathBytes, StandardCharsets.UTF_8);
        if (pathBytes.length == 0 || path.indexOf('\0') >= 0) {
            throw new UromException(UromStatus.INVALID_VALUE, "MEM_MAP refused: the path is empty or holds a NUL");
        }
        MappableRoots mappable = roots.get();
        Optional<MappableRoots.Root> root = mappable.rootOf(path);
        if (root.isEmpty()) {
            throw ConfinedFiles.refusal(
                    UromStatus.NOT_PERMITTED,
                    path,
                    "only files under " + mappable.describe() + " may be mapped, and the path may not hold '..'");
        }
        FileChannel file = ConfinedFiles.open(mappable, root.get(), path);
        try {
            MappedByteBuffer mapping = mapChecked(file, path, length);
            long id = ++lastId;
            regions.put(id, new Region(file, mapping, root.get().hugetlbfs()));
            return id;
        } catch (UromException | RuntimeException e) {
            closeQuietly(file);
            throw e;
        }
    }

    private MappedByteBuffer mapChecked(FileChannel file, String path, long length) throws UromException {
        try {
            OpenFileStatus.Status status = OpenFileStatus.of(file);
            if (!status.isRegularFile()) {
                throw ConfinedFiles.refusal(UromStatus.INVALID_VALUE, path, "it is not a regular file");
            }
            if (!owners.accepts(status.uid())) {
                throw ConfinedFiles.refusal(
                        UromStatus.NOT_PERMITTED,
                        path,
                        "the file is owned by uid " + status.uid() + "; accepted: " + owners.describe());
            }
            if (length <= 0 || length > Integer.MAX_VALUE) {
                throw ConfinedFiles.refusal(
                        UromStatus.INVALID_VALUE,
                        path,
                        "length " + Long.toUnsignedString(length) + " is not between 1 and " + Integer.MAX_VALUE
                                + " bytes (one Java mapping)");
            }
            if (status.size() < length) {
                throw ConfinedFiles.refusal(
                        UromStatus.INVALID_VALUE,
                        path,
                        "the file is " + status.size() + " bytes, shorter than length " + length);
            }
            return file.map(FileChannel.MapMode.READ_WRITE, 0, length);
        } catch (IOException e) {
            throw ConfinedFiles.refusal(UromStatus.OPERATING_SYSTEM, path, e.toString());
        }
    }

    /**
     * Checks that {@code [offset, offset + count)} lies inside region {@code memhId}.
     *
     * @throws UromException {@code NOT_FOUND} for an unknown id, {@code INVALID_VALUE} beyond the region
     */
    void check(long memhId, long offset, long count) throws UromException {
        Region region = region(memhId);
        long end = offset + count;
        if (offset < 0 || count < 0 || end < 0 || end > region.length()) {
            throw new UromException(
                    UromStatus.INVALID_VALUE,
                    "buffer " + Long.toUnsignedString(offset) + " + count " + Long.toUnsignedString(count)
                            + " lies beyond region memh_id " + memhId + " of " + region.length() + " bytes");
        }
    }

    /**
     * Reads {@code target.remaining()} bytes at {@code offset} of region {@code memhId} into
     * {@code target}; {@link #check} first.
     *
     * @throws UromException {@code IO_FAILED} when the file now ends before them or cannot be read
     */
    void read(long memhId, long offset, ByteBuffer target) throws UromException {
        FileChannel file = region(memhId).file();
        int count = target.remaining();
        try {
            for (long position = offset; target.hasRemaining(); ) {
                int read = file.read(target.slice(target.position(), Math.min(IO_CHUNK, target.remaining())), position);
                if (read < 0) {
                    throw copyFailed(
                            "TAG_SEND from",
                            memhId,
                            offset,
                            count,
                            "the file is now shorter than that (it shrank after MEM_MAP)");
                }
                target.position(target.position() + read);
                position += read;
            }
        } catch (IOException e) {
            throw copyFailed("TAG_SEND from", memhId, offset, count, e.toString());
        }
    }

    /**
     * Writes the bytes remaining in {@code data} at {@code offset} of region {@code memhId}; {@link
     * #check} first. {@code data}'s position is left where it was.
     *
     * @throws UromException {@code IO_FAILED} when the file is now shorter than {@code offset +
     *     data.remaining()} (nothing is written) or the write fails
     */
    void write(long memhId, long offset, ByteBuffer data) throws UromException {
        int count = data.remaining();
        if (count == 0) {
            return;
        }
        Region region = region(memhId);
        try {
            if (region.file().size() < offset + count) {
                throw copyFailed(
                        "TAG_RECV into",
                        memhId,
                        offset,
                        count,
                        "the file is now shorter than that (it shrank after MEM_MAP)");
            }
            if (region.hugetlbfs()) {
                KernelCopy.copy(data.slice(), region.mapping().slice((int) offset, count));
                return;
            }
            ByteBuffer source = data.slice();
            for (int done = 0; done < count; ) {
                done += region.file().write(source.slice(done, Math.min(IO_CHUNK, count - done)), offset + done);
            }
        } catch (IOException e) {
            throw copyFailed("TAG_RECV into", memhId, offset, count, e.toString());
        }
    }

    void clear() {
        for (Region region : regions.values()) {
            closeQuietly(region.file());
        }
        regions.clear();
    }

    private static UromException copyFailed(String what, long memhId, long offset, long count, String reason) {
        return new UromException(
                UromStatus.IO_FAILED,
                what + " region memh_id " + memhId + " at [" + offset + ", +" + count + ") failed: " + reason);
    }

    private Region region(long memhId) throws UromException {
        Region region = memhId == 0 ? null : regions.get(memhId);
        if (region == null) {
            throw new UromException(
                    UromStatus.NOT_FOUND,
                    "memh_id " + Long.toUnsignedString(memhId) + " is not a mapped region of this plugin");
        }
        return region;
    }

    private static void closeQuietly(FileChannel file) {
        try {
            file.close();
        } catch (IOException ignored) {
            // the region is being dropped: nothing more to do with the file
        }
    }
}
