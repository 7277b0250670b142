// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {
    @TempDir
    Path dir;

    @Test
    void deletesATreeButNotWhatALinkInItPointsTo() throws Exception {
        Path outside = Files.writeString(dir.resolve("outside.txt"), "kept");
        Path tree = Files.createDirectories(dir.resolve("tree/a/b"));
        Files.writeString(tree.resolve("file"), "x");
        Files.createSymbolicLink(dir.resolve("tree/a/link"), outside);
        Files.createSymbolicLink(dir.resolve("tree/dirlink"), dir);

        FileTrees.delete(dir.resolve("tree"));

        assertThat(dir.resolve("tree")).doesNotExist();
        assertThat(outside).hasContent("kept");
    }

    @Test
    void aMissingDirectoryIsNothingToDo() throws Exception {
        FileTrees.delete(dir.resolve("absent"));

        assertThat(dir).isEmptyDirectory();
    }
}
