// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KernelCopy} into real mappings: a mapping whose file shrank fails with an IOException (a
 * direct copy there would fault), a whole one receives every byte.
 */
class KernelCopyTest {
    private static final int LENGTH = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void aCopyIntoAMappingWhoseFileShrankFailsAndTheProcessGoesOn() throws IOException {
        Path file = Files.write(dir.resolve("region"), new byte[LENGTH]);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH);
            channel.truncate(0);
            assertThat(channel.size()).isZero();

            assertThatThrownBy(() -> KernelCopy.copy(ByteBuffer.wrap(bytes(LENGTH)), mapping.slice(0, LENGTH)))
                    .isInstanceOf(IOException.class);
        }
        assertThat(Files.size(file)).as("nothing was written into the file").isZero();
    }

    @Test
    void aCopyIntoAWholeMappingLandsInTheFile() throws IOException {
        Path file = Files.write(dir.resolve("region"), new byte[LENGTH]);
        byte[] data = bytes(LENGTH - 100);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, LENGTH);
            ByteBuffer source = ByteBuffer.wrap(data);
            ByteBuffer target = mapping.slice(50, data.length);

            KernelCopy.copy(source, target);

            assertThat(source.hasRemaining()).isFalse();
            assertThat(target.hasRemaining()).isFalse();
        }
        byte[] after = Files.readAllBytes(file);
        assertThat(java.util.Arrays.copyOfRange(after, 50, 50 + data.length)).isEqualTo(data);
        assertThat(java.util.Arrays.copyOfRange(after, 0, 50)).containsOnly(0);
    }

    private static byte[] bytes(int length) {
        byte[] data = new byte[length];
        new Random(length).nextBytes(data);
        return data;
    }
}
