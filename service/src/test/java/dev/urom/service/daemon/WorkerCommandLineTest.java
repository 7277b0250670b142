// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WorkerCommandLineTest {
    private static final Path HERE = Path.of("").toAbsolutePath();

    @Test
    void relativeClassPathEntriesBecomeAbsoluteBecauseAWorkerStartsInItsOwnDirectory() {
        assertThat(WorkerCommandLine.absoluteClassPath("bench/target/benchmarks.jar:/opt/urom/lib/*:lib/*:"))
                .isEqualTo(HERE.resolve("bench/target/benchmarks.jar") + ":/opt/urom/lib/*:" + HERE.resolve("lib/*")
                        + ":" + HERE);
    }

    @Test
    void anAbsoluteClassPathStaysAsItIs() {
        assertThat(WorkerCommandLine.absoluteClassPath("/a/b.jar:/c/classes")).isEqualTo("/a/b.jar:/c/classes");
    }
}
