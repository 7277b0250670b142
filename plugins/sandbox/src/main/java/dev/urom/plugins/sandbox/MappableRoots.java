// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The directories whose files MEM_MAP may map, {@code /dev/shm} and every hugetlbfs mount point,
 * and the mount points of the system, which a MEM_MAP path may not cross below its root.
 * Immutable; safe to share between threads.
 */
final class MappableRoots {
    private static final Logger LOG = LogManager.getLogger(MappableRoots.class);
    static final String SHM = "/dev/shm";
    private static final Path MOUNTS = Path.of("/proc/mounts");

    /** A root directory (no trailing {@code /}); {@code hugetlbfs} when a hugetlbfs is mounted there. */
    record Root(String directory, boolean hugetlbfs) {
        Root {
            requireNonNull(directory, "directory is null");
        }
    }

    private final List<Root> roots;
    private final Set<String> mountPoints;

    MappableRoots(List<Root> roots, Set<String> mountPoints) {
        this.roots = List.copyOf(requireNonNull(roots, "roots is null"));
        this.mountPoints = Set.copyOf(requireNonNull(mountPoints, "mountPoints is null"));
    }

    /** From {@code /proc/mounts} as it is now; {@code /dev/shm} alone when it cannot be read. */
    static MappableRoots ofSystem() {
        try {
            return fromMounts(Files.readAllLines(MOUNTS));
        } catch (IOException e) {
            LOG.warn("cannot read {} ({}); MEM_MAP allows only files under {}", MOUNTS, e.getMessage(), SHM);
            return new MappableRoots(List.of(new Root(SHM, false)), Set.of());
        }
    }

    /** {@code /dev/shm}, the hugetlbfs mount points and every mount point of a {@code /proc/mounts} text. */
    static MappableRoots fromMounts(List<String> mountLines) {
        Set<String> hugetlbfs = new HashSet<>();
        Set<String> mountPoints = new HashSet<>();
        for (String line : mountLines) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 3 && fields[1].startsWith("/")) {
                String mountPoint = unescape(fields[1]);
                mountPoints.add(mountPoint);
                if (fields[2].equals("hugetlbfs")) {
                    hugetlbfs.add(mountPoint);
                }
            }
        }
        List<Root> roots = new ArrayList<>();
        roots.add(new Root(SHM, hugetlbfs.contains(SHM)));
        for (String mountPoint : hugetlbfs) {
            if (!mountPoint.equals(SHM)) {
                roots.add(new Root(mountPoint, true));
            }
        }
        return new MappableRoots(roots, mountPoints);
    }

    /**
     * The root MEM_MAP resolves {@code path} beneath: the longest root {@code path} lies strictly
     * below (a root followed by {@code /}); empty when it lies below none or holds {@code ..}.
     */
    Optional<Root> rootOf(String path) {
        if (path.contains("..")) {
            return Optional.empty();
        }
        Root best = null;
        for (Root root : roots) {
            String directory = root.directory().replaceAll("/+$", "");
            if (path.startsWith(directory + "/")
                    && (best == null || directory.length() > best.directory().length())) {
                best = new Root(directory, root.hugetlbfs());
            }
        }
        return Optional.ofNullable(best);
    }

    /** Whether something is mounted at {@code path} (a path as {@code /proc/mounts} writes it). */
    boolean isMountPoint(String path) {
        return mountPoints.contains(path);
    }

    /** The root directories, for messages. */
    String describe() {
        return String.join(", ", roots.stream().map(Root::directory).toList());
    }

    private static String unescape(String field) {
        StringBuilder out = new StringBuilder(field.length());
        for (int i = 0; i < field.length(); i++) {
            char c = field.charAt(i);
            if (c == '\\' && isOctal(field, i + 1)) {
                out.append((char) Integer.parseInt(field.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean isOctal(String s, int from) {
        if (from + 3 > s.length()) {
            return false;
        }
        for (int i = from; i < from + 3; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
