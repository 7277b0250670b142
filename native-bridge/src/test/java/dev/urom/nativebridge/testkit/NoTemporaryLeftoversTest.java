// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The leftover check on real classes run by a JUnit launcher of their own, with auto-detection on
 * as the build has it: a class that leaves a native-file directory of a finished process, or a
 * sandbox socket, in {@code TMPDIR} fails naming it; one that cleans up passes.
 */
class NoTemporaryLeftoversTest {
    private static final String LEAKED_SOCKET =
            "urom-sandbox-test-" + ProcessHandle.current().pid() + ".sock";

    /** Leaves a native-file directory named for a process that has ended, as a killed JVM would. */
    static class LeavesANativeDirectory {
        @Test
        void leaves() throws Exception {
            Files.createDirectory(tmpdir().resolve("urom-native-" + finishedPid() + "-1"));
        }
    }

    /** Leaves a sandbox socket file (a plain file stands in for it: the name is what counts). */
    static class LeavesASandboxSocket {
        @Test
        void leaves() throws IOException {
            Files.createFile(tmpdir().resolve(LEAKED_SOCKET));
        }
    }

    /** Makes the same and removes it before it ends. */
    static class CleansUp {
        @Test
        void cleans() throws Exception {
            Path made = Files.createDirectory(tmpdir().resolve("urom-native-" + finishedPid() + "-2"));
            Files.delete(made);
        }
    }

    @Test
    void aClassThatLeavesANativeDirectoryOfAnEndedProcessFailsNamingIt() throws Exception {
        List<Throwable> failures = run(LeavesANativeDirectory.class);
        try {
            assertThat(failures)
                    .singleElement()
                    .extracting(Throwable::getMessage)
                    .asString()
                    .startsWith(LeavesANativeDirectory.class.getName() + " left 1 temporary file(s) behind: "
                            + tmpdir().resolve("urom-native-"))
                    .endsWith(", gone)");
        } finally {
            try (var entries = Files.newDirectoryStream(tmpdir(), "urom-native-*-1")) {
                for (Path entry : entries) {
                    Files.delete(entry);
                }
            }
        }
    }

    @Test
    void aClassThatLeavesASandboxSocketFailsNamingIt() throws Exception {
        try {
            assertThat(run(LeavesASandboxSocket.class))
                    .singleElement()
                    .extracting(Throwable::getMessage)
                    .isEqualTo(LeavesASandboxSocket.class.getName() + " left 1 temporary file(s) behind: "
                            + tmpdir().resolve(LEAKED_SOCKET));
        } finally {
            Files.deleteIfExists(tmpdir().resolve(LEAKED_SOCKET));
        }
    }

    @Test
    void aClassThatRemovesWhatItMadePasses() throws Exception {
        assertThat(run(CleansUp.class)).isEmpty();
    }

    @Test
    void thisJvmsOwnNativeDirectoryIsNoLeftoverButAnotherPidsIs() {
        long self = ProcessHandle.current().pid();
        assertThat(NoTemporaryLeftovers.isLeftover("urom-native-" + self + "-123", self))
                .isFalse();
        assertThat(NoTemporaryLeftovers.isLeftover("urom-native-" + (self + 1) + "-123", self))
                .isTrue();
        assertThat(NoTemporaryLeftovers.isLeftover("urom-sandbox-1-2.sock", self))
                .isTrue();
        assertThat(NoTemporaryLeftovers.isLeftover("urom-root", self)).isFalse();
    }

    private static Path tmpdir() {
        assertThat(NoTemporaryLeftovers.directories())
                .as("TMPDIR of the test JVM (the build sets it)")
                .hasSize(1);
        return NoTemporaryLeftovers.directories().get(0);
    }

    /** The pid of a process that has ended (and been reaped). */
    private static long finishedPid() throws Exception {
        Process process = new ProcessBuilder("true").start();
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return process.pid();
    }

    /** Runs the class; returns the failures of the class and its tests. */
    private static List<Throwable> run(Class<?> testClass) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(testClass))
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .build();
        List<Throwable> failures = new ArrayList<>();
        LauncherFactory.create().execute(request, new TestExecutionListener() {
            @Override
            public void executionFinished(TestIdentifier identifier, TestExecutionResult result) {
                result.getThrowable().ifPresent(failures::add);
            }
        });
        return failures;
    }
}
