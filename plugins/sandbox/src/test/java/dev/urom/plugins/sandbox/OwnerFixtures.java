// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/** Who the test runs as, and files of other users for the owner rule of MEM_MAP. Stateless. */
final class OwnerFixtures {
    /** The uid files are given to when the test runs as root. */
    static final long NOBODY = 65534;

    private OwnerFixtures() {}

    /** The uid that owns the files this test creates. */
    static long myUid(Path dir) {
        try {
            Path probe = Files.createTempFile(dir, "uid-", ".probe");
            long uid = uidOf(probe);
            Files.delete(probe);
            return uid;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean runningAsRoot() {
        return myUid(Path.of(System.getProperty("java.io.tmpdir"))) == 0;
    }

    static long uidOf(Path file) {
        try {
            return Integer.toUnsignedLong((Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Gives {@code file} to {@code uid}; only root may. */
    static Path chown(Path file, long uid) {
        try {
            Files.setAttribute(file, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A readable regular file this test's user does not own: as root a new file in {@code dir}
     * given to {@link #NOBODY}; as any other user {@code /etc/passwd}, which root owns.
     */
    static Path notMine(Path dir) {
        Path file;
        if (runningAsRoot()) {
            file = chown(ShmScratch.write(dir.resolve("not-mine"), new byte[64]), NOBODY);
        } else {
            file = Path.of("/etc/passwd");
        }
        assertThat(uidOf(file)).as("owner of %s", file).isNotEqualTo(myUid(dir));
        return file;
    }
}
