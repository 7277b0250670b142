// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link OpenFileStatus}: what it says is the open file's, whatever its name has become. */
class OpenFileStatusTest {
    @TempDir
    Path dir;

    @Test
    void describesTheOpenFileEvenAfterAnotherFileTookItsName() throws Exception {
        Path file = Files.write(dir.resolve("mapped"), new byte[100]);
        Path other = Files.write(dir.resolve("other"), new byte[7]);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            OpenFileStatus.Status before = OpenFileStatus.of(channel);
            assertThat(before.isRegularFile()).isTrue();
            assertThat(before.size()).isEqualTo(100);
            assertThat(before.uid()).isEqualTo(OwnerFixtures.uidOf(file));
            assertThat(before.mode() & 0777).isEqualTo((Integer) Files.getAttribute(file, "unix:mode") & 0777);

            Files.move(other, file, StandardCopyOption.REPLACE_EXISTING);

            assertThat(Files.size(file)).as("what the name is now").isEqualTo(7);
            assertThat(OpenFileStatus.of(channel).size())
                    .as("what the channel has open")
                    .isEqualTo(100);
            assertThat(channel.position()).as("the position is set back").isZero();
        }
    }

    @Test
    void eachOfManyOpenChannelsFindsItsOwnFile() throws Exception {
        List<FileChannel> channels = new ArrayList<>();
        try {
            for (int i = 0; i < 32; i++) {
                channels.add(FileChannel.open(Files.write(dir.resolve("f" + i), new byte[i]), StandardOpenOption.READ));
            }
            for (int i = 0; i < channels.size(); i++) {
                assertThat(OpenFileStatus.of(channels.get(i)).size())
                        .as("channel %d", i)
                        .isEqualTo(i);
            }
        } finally {
            for (FileChannel channel : channels) {
                channel.close();
            }
        }
    }

    /** As any user: the file is one this test's user does not own (see {@link OwnerFixtures#notMine}). */
    @Test
    void theOwnerIsTheOpenFilesOwner() throws Exception {
        Path notMine = OwnerFixtures.notMine(dir);
        try (FileChannel channel = FileChannel.open(notMine, StandardOpenOption.READ)) {
            assertThat(OpenFileStatus.of(channel).uid()).isEqualTo(OwnerFixtures.uidOf(notMine));
        }
    }
}
