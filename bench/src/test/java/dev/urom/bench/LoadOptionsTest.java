// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadOptionsTest {
    @Test
    void theDefaultsAreEightHostsOfFourWorkersWithAHundredThousandCommandsSixteenInFlight() {
        LoadOptions options = LoadOptions.parse(List.of());

        assertThat(options).isEqualTo(new LoadOptions(8, 4, 100_000, 16, null, null));
        assertThat(options.workers()).isEqualTo(32);
    }

    @Test
    void everyOptionIsRead() {
        assertThat(LoadOptions.parse(List.of(
                        "--hosts",
                        "2",
                        "--workers-per-host",
                        "3",
                        "--commands",
                        "2000",
                        "--in-flight",
                        "4",
                        "--json",
                        "out.json",
                        "--worker-user",
                        "nobody")))
                .isEqualTo(new LoadOptions(2, 3, 2000, 4, Path.of("out.json"), "nobody"));
    }

    @Test
    void eachCountOutsideItsLimitsIsRefusedWithOneLineNamingTheOptionAndTheLimits() {
        assertRefused(List.of("--hosts", "0"), "--hosts '0' is not a whole number from 1 to 64");
        assertRefused(List.of("--hosts", "65"), "--hosts '65' is not a whole number from 1 to 64");
        assertRefused(
                List.of("--workers-per-host", "65"), "--workers-per-host '65' is not a whole number from 1 to 64");
        assertRefused(
                List.of("--commands", "10000001"), "--commands '10000001' is not a whole number from 1 to 10000000");
        assertRefused(List.of("--commands", "many"), "--commands 'many' is not a whole number from 1 to 10000000");
        assertRefused(List.of("--in-flight", "1025"), "--in-flight '1025' is not a whole number from 1 to 1024");
        assertRefused(List.of("--in-flight", "0"), "--in-flight '0' is not a whole number from 1 to 1024");
    }

    @Test
    void moreWorkersInAllThanTheLimitAreRefused() {
        assertRefused(
                List.of("--hosts", "64", "--workers-per-host", "5"),
                "--hosts 64 x --workers-per-host 5 is 320 workers, over the limit of 256");
        assertThat(LoadOptions.parse(List.of("--hosts", "64", "--workers-per-host", "4"))
                        .workers())
                .isEqualTo(256);
    }

    @Test
    void anUnknownArgumentOrAMissingValueIsRefusedWithTheUsage() {
        assertRefused(List.of("--threads", "4"), "unknown argument '--threads'; usage: LoadBench");
        assertRefused(List.of("--hosts"), "--hosts needs a value; usage: LoadBench");
    }

    @Test
    void workersAlternateBetweenTheCAndTheJavaPlugin() {
        assertThat(LoadOptions.runsNativePlugin(0, 0)).isTrue();
        assertThat(LoadOptions.runsNativePlugin(0, 1)).isFalse();
        assertThat(LoadOptions.runsNativePlugin(1, 0)).isFalse();
        assertThat(LoadOptions.runsNativePlugin(1, 1)).isTrue();
    }

    private static void assertRefused(List<String> args, String messageStart) {
        assertThatThrownBy(() -> LoadOptions.parse(args))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(messageStart)
                .hasMessageNotContaining("\n");
    }
}
