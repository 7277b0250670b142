// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a check's grade turns from WARN to FAIL: the log directory when the daemon's fallback is
 * unusable too, the plugin directories when none of them is usable.
 */
class DoctorGradeTest {
    @TempDir
    Path dir;

    @Test
    void anUnusableLogDirectoryIsAWarningWhileTheFallbackWorks() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");

        CheckResult result = new LogDirectoryCheck(file.resolve("log"), dir.resolve("fallback")).run();

        assertThat(result.grade()).isEqualTo(CheckResult.Grade.WARN);
        assertThat(result.detail())
                .isEqualTo(file.resolve("log") + " cannot be created: " + file
                        + " is not a directory; the daemon logs to its fallback "
                        + dir.resolve("fallback/urom_daemon_dev.log") + " instead");
    }

    @Test
    void anUnusableLogDirectoryFailsWhenTheFallbackIsUnusableToo() throws Exception {
        Path file = Files.writeString(dir.resolve("file"), "x");

        CheckResult result = new LogDirectoryCheck(file.resolve("log"), file.resolve("fallback")).run();

        assertThat(result.grade()).isEqualTo(CheckResult.Grade.FAIL);
        assertThat(result.detail())
                .contains("the daemon's fallback cannot be used either")
                .endsWith("the daemon would not start");
        assertThat(result.advice()).contains("--log-dir DIR");
    }

    @Test
    void aSinglePluginDirectoryThatIsMissingFails() {
        Path missing = dir.resolve("none");

        CheckResult result = new PluginDirectoriesCheck(missing.toString()).run();

        assertThat(result.grade()).isEqualTo(CheckResult.Grade.FAIL);
        assertThat(result.detail()).isEqualTo(missing + " does not exist");
    }

    @Test
    void aWarningOrAFailureWithoutAdviceIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> CheckResult.warned("x", "found", null))
                .isInstanceOf(NullPointerException.class);
        assertThat(CheckResult.warned("x", "found", "do this").ok()).isTrue();
        assertThat(CheckResult.failed("x", "found", "do this").ok()).isFalse();
    }
}
