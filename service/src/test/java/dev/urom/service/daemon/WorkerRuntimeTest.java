// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.service.testkit.TestWorkers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a daemon makes its workers' directories: in java.io.tmpdir, only when nobody else can swap them. */
class WorkerRuntimeTest {
    @TempDir
    Path dir;

    private String tmpdir;

    @BeforeEach
    void rememberTheTemporaryDirectory() {
        tmpdir = System.getProperty("java.io.tmpdir");
    }

    @AfterEach
    void restoreTheTemporaryDirectory() {
        System.setProperty("java.io.tmpdir", tmpdir);
    }

    @Test
    void aTemporaryDirectoryOthersMayWriteWithoutTheStickyBitIsRefusedInOneLineAndLeftEmpty() throws Exception {
        Path open = Files.createDirectory(dir.resolve("open"));
        Files.setAttribute(open, "unix:mode", 0777);
        System.setProperty("java.io.tmpdir", open.toString());

        assertThatThrownBy(() -> WorkerRuntime.start(TestWorkers.security()))
                .hasMessageStartingWith("the workers' directory " + open + "/urom-workers-")
                .hasMessageContaining(" is not safe: ")
                .hasMessageContaining(" is under " + open + ", which is mode 0777")
                .hasMessageEndingWith(
                        "; give the daemon a java.io.tmpdir that only it (or root) may write, or one with the sticky bit")
                .hasMessageNotContaining("\n");
        try (Stream<Path> left = Files.list(open)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void aStickyTemporaryDirectoryAsTmpIsTaken() throws Exception {
        Path sticky = Files.createDirectory(dir.resolve("sticky"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        System.setProperty("java.io.tmpdir", sticky.toString());

        try (WorkerRuntime runtime = WorkerRuntime.start(TestWorkers.security())) {
            assertThat(runtime.workerDirectory("worker-0-1").getParent().getParent())
                    .isEqualTo(sticky);
        }
        try (Stream<Path> left = Files.list(sticky)) {
            assertThat(left).as("the work directory is gone after close").isEmpty();
        }
    }

    @Test
    void startingDeletesTheWorkDirectoriesOfDaemonsThatAreGoneAndNothingElse() throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp"));
        System.setProperty("java.io.tmpdir", tmp.toString());
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        long gonePid = ended.pid();
        Path gone = Files.createDirectories(
                tmp.resolve("urom-workers-" + gonePid + "-123").resolve("worker-0-1"));
        Path live = Files.createDirectory(tmp.resolve(
                "urom-workers-" + ProcessHandle.current().parent().orElseThrow().pid() + "-456"));
        Path oldStyle = Files.createDirectory(tmp.resolve("urom-workers-789"));
        Path link = Files.createSymbolicLink(tmp.resolve("urom-workers-" + gonePid + "-777"), live);

        try (WorkerRuntime runtime = WorkerRuntime.start(TestWorkers.security())) {
            assertThat(gone.getParent())
                    .as("the directory of a daemon that is gone")
                    .doesNotExist();
            assertThat(live).as("a live daemon's").isDirectory();
            assertThat(oldStyle).as("a name without a pid").isDirectory();
            assertThat(link).as("a symbolic link is never followed nor deleted").isSymbolicLink();
            assertThat(runtime.workerDirectory("worker-0-1")
                            .getParent()
                            .getFileName()
                            .toString())
                    .startsWith("urom-workers-" + ProcessHandle.current().pid() + "-");
        }
    }

    @Test
    void theDaemonPidIsReadFromTheNameOnly() {
        assertThat(WorkerRuntime.daemonPid("urom-workers-4242-98765")).hasValue(4242);
        assertThat(WorkerRuntime.daemonPid("urom-workers-98765")).isEmpty();
        assertThat(WorkerRuntime.daemonPid("urom-workers--1-2")).isEmpty();
        assertThat(WorkerRuntime.daemonPid("urom-workers-12345678901-2")).isEmpty();
        assertThat(WorkerRuntime.daemonPid("urom-private-4242-1")).isEmpty();
    }
}
