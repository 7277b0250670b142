// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SoakOptionsTest {
    @Test
    void theDefaultsAreFiveMinutesSampledEveryTenSeconds() {
        SoakOptions options = SoakOptions.parse(List.of());

        assertThat(options.duration()).isEqualTo(Duration.ofMinutes(5));
        assertThat(options.sampleInterval()).isEqualTo(Duration.ofSeconds(10));
        assertThat(options.workerLogCount()).isEqualTo(64);
        assertThat(options.daemonJavaOptions()).isEqualTo(SoakOptions.DEFAULT_DAEMON_JAVA_OPTIONS);
        assertThat(options.json()).isNull();
    }

    @Test
    void minutesMayBeFractionalAndSecondsWhole() {
        assertThat(SoakOptions.parse(List.of("--minutes", "0.5")).duration()).isEqualTo(Duration.ofSeconds(30));
        assertThat(SoakOptions.parse(List.of("--minutes", "30")).duration()).isEqualTo(Duration.ofMinutes(30));
        assertThat(SoakOptions.parse(List.of("--seconds", "20", "--sample-seconds", "2"))
                        .sampleInterval())
                .isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void theDaemonsJavaOptionsAreWordsAndMayBeNone() {
        assertThat(SoakOptions.parse(List.of("--daemon-java-opts", " -Xmx64m  -XX:+UseSerialGC "))
                        .daemonJavaOptions())
                .containsExactly("-Xmx64m", "-XX:+UseSerialGC");
        assertThat(SoakOptions.parse(List.of("--daemon-java-opts", "")).daemonJavaOptions())
                .isEmpty();
        SoakOptions files = SoakOptions.parse(List.of("--json", "s.json", "--csv", "s.csv", "--worker-log-count", "4"));
        assertThat(files.json()).isEqualTo(Path.of("s.json"));
        assertThat(files.csv()).isEqualTo(Path.of("s.csv"));
        assertThat(files.workerLogCount()).isEqualTo(4);
    }

    @Test
    void aBadValueIsOneLine() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--minutes", "0")))
                .hasMessage("--minutes '0' is not a number of minutes above 0 and at most 1440");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--minutes", "five")))
                .hasMessage("--minutes 'five' is not a number of minutes above 0 and at most 1440");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--sample-seconds", "0")))
                .hasMessage("--sample-seconds '0' is not a whole number from 1 to 600");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--hours", "1")))
                .hasMessageStartingWith("unknown argument '--hours'; usage: SoakBench");
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--json")))
                .hasMessageStartingWith("--json needs a value; usage: SoakBench");
    }

    @Test
    void minutesAndSecondsTogetherAreRefused() {
        assertThatThrownBy(() -> SoakOptions.parse(List.of("--minutes", "1", "--seconds", "20")))
                .hasMessage("--minutes and --seconds exclude each other; " + SoakOptions.USAGE);
    }
}
