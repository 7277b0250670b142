// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The daemon's pipe, line by line: whole lines only, bounded, and each line's bytes zeroed once handled. */
class StdinWatcherTest {
    @Test
    void eachWholeLineGoesToTheHandlerAndIsZeroedAfterwards() throws IOException {
        List<String> seen = new ArrayList<>();
        List<byte[]> handed = new ArrayList<>();

        StdinWatcher.readLines(
                new ByteArrayInputStream(
                        "ACCESS unix:5 - abc\nSTATS 1\n\nno end of line".getBytes(StandardCharsets.US_ASCII)),
                line -> {
                    seen.add(new String(line, StandardCharsets.US_ASCII));
                    handed.add(line);
                });

        assertThat(seen).containsExactly("ACCESS unix:5 - abc", "STATS 1", "");
        assertThat(handed).allSatisfy(line -> assertThat(line).isEqualTo(new byte[line.length]));
    }

    @Test
    void aLineLongerThanTheBoundIsCutAndTheNextLineIsWhole() throws IOException {
        List<String> seen = new ArrayList<>();
        String tooLong = "x".repeat(StdinWatcher.MAX_LINE_BYTES + 100);

        StdinWatcher.readLines(
                new ByteArrayInputStream((tooLong + "\nSTATS 2\n").getBytes(StandardCharsets.US_ASCII)),
                line -> seen.add(new String(line, StandardCharsets.US_ASCII)));

        assertThat(seen).containsExactly("x".repeat(StdinWatcher.MAX_LINE_BYTES), "STATS 2");
    }
}
