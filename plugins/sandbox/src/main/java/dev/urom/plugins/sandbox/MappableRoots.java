package dev.urom.plugins.sandbox;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * The directories whose files MEM_MAP may map: {@code /dev/shm} and every hugetlbfs mount point.
 * Immutable; safe to share between threads.
 */
final class MappableRoots {
    private static final Logger LOG = LogManager.getLogger(MappableRoots.class);
    static final String SHM = "/dev/shm";

    private final List<String> roots;

    MappableRoots(List<String> roots) {
        this.roots = List.copyOf(requireNonNull(roots, "roots is null"));
    }

    /** {@code /dev/shm} and the hugetlbfs mounts listed in {@code /proc/mounts} (none when it cannot be read). */
    static MappableRoots ofSystem() {
        List<String> roots = new ArrayList<>();
        roots.add(SHM);
        try {
            roots.addAll(hugetlbfsMounts(Files.readAllLines(Path.of("/proc/mounts"))));
        } catch (IOException e) {
            LOG.warn("cannot read /proc/mounts ({}); MEM_MAP allows only {}", e.getMessage(), SHM);
        }
        return new MappableRoots(roots);
    }

    /** The mount points of the hugetlbfs lines of a {@code /proc/mounts} text (octal escapes decoded). */
    static List<String> hugetlbfsMounts(List<String> mountLines) {
        List<String> mounts = new ArrayList<>();
        for (String line : mountLines) {
            String[] fields = line.trim().split("\\s+");
            if (fields.length >= 3 && fields[2].equals("hugetlbfs")) {
                mounts.add(unescape(fields[1]));
            }
        }
        return mounts;
    }

    /**
     * Whether MEM_MAP may map {@code path}: it has no {@code ..} anywhere and lies strictly below
     * one of the roots (the root itself with a trailing {@code /} is below it, as for the C plugin).
     */
    boolean permits(String path) {
        if (path.contains("..")) {
            return false;
        }
        for (String root : roots) {
            String prefix = root.replaceAll("/+$", "") + "/";
            if (path.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    List<String> roots() {
        return roots;
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
