// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AffinityTest {
    private Process child;

    @AfterEach
    void destroyChild() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void allowedCpusMatchesTheKernelsList() throws Exception {
        String expected = statusField(Path.of("/proc/self/status"), "Cpus_allowed_list");
        assertThat(Affinity.format(Affinity.allowedCpus())).isEqualTo(expected);
    }

    @Test
    void formatWritesRanges() {
        BitSet cpus = new BitSet();
        cpus.set(0, 4);
        cpus.set(8);
        cpus.set(10, 12);
        assertThat(Affinity.format(cpus)).isEqualTo("0-3,8,10-11");
        assertThat(Affinity.format(new BitSet())).isEmpty();
    }

    @Test
    void pinsEveryThreadOfAChildProcessIncludingThreadsStartedLater() throws Exception {
        BitSet allowed = Affinity.allowedCpus();
        int cpu = allowed.length() - 1;
        child = ChildJvm.start(AffinityProbe.class, List.of(Integer.toString(cpu)));
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).isEqualTo("PINNED " + cpu);

        List<String> lists = new ArrayList<>();
        try (DirectoryStream<Path> tasks =
                Files.newDirectoryStream(Path.of("/proc", Long.toString(child.pid()), "task"))) {
            for (Path task : tasks) {
                try {
                    lists.add(statusField(task.resolve("status"), "Cpus_allowed_list"));
                } catch (NoSuchFileException ended) {
                    // a JVM thread that ended meanwhile
                }
            }
        }
        assertThat(lists).hasSizeGreaterThan(5).containsOnly(Integer.toString(cpu));
        assertThat(Affinity.format(Affinity.allowedCpus()))
                .as("the test JVM is not pinned")
                .isEqualTo(Affinity.format(allowed));
    }

    @Test
    void aCpuOutsideTheAllowedSetIsInvalidAndNamed() throws Exception {
        BitSet cpus = new BitSet();
        cpus.set(4095);
        assertThatThrownBy(() -> Affinity.pinProcess(cpus))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE))
                .hasMessageContaining("CPU 4095 is not available to this process (available: "
                        + Affinity.format(Affinity.allowedCpus()) + ")");
    }

    @Test
    void anEmptySetIsInvalid() {
        assertThatThrownBy(() -> Affinity.pinProcess(new BitSet()))
                .isInstanceOfSatisfying(
                        UromException.class, e -> assertThat(e.status()).isEqualTo(UromStatus.INVALID_VALUE));
    }

    @Test
    void theChildReportsARefusedCpuWithoutBeingPinned() throws Exception {
        child = ChildJvm.start(AffinityProbe.class, List.of("4095"));
        BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        assertThat(out.readLine()).startsWith("ERROR INVALID_VALUE CPU 4095 is not available");
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }

    static String statusField(Path status, String field) throws IOException {
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        throw new AssertionError(status + " has no " + field);
    }
}
