// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    private final Report report = new Report(
            Map.of("rounds", 1000, "note", "a \"quoted\" word"),
            List.of(
                    Figure.atMostTimes("rt_p50", "round trip p50", 30, "us", "floor p50", 20, 1.5),
                    Figure.atLeastTimes("tp", "throughput", 90_000, "ops/s", "gRPC", 20_000, 3),
                    Figure.atMost("start", "worker start p50", 300, "ms", 250),
                    Figure.plain("floor", "floor p50", 20, "us")));

    @Test
    void targetsAreJudgedOnTheRatio() {
        assertThat(report.figures()).extracting(Figure::met).containsExactly(true, true, false, null);
        assertThat(report.targetsMet()).isEqualTo(2);
        assertThat(report.targetsTotal()).isEqualTo(3);
    }

    @Test
    void tableHasOneAlignedRowPerFigure() {
        List<String> lines = report.table().lines().toList();

        assertThat(lines).hasSize(2 + 4 + 1);
        assertThat(lines.get(0)).startsWith("figure").contains("| met?");
        assertThat(lines.get(2))
                .contains("round trip p50", "30.0 us", "floor p50 20.0 us", "1.50x", "ratio <= 1.5", "met");
        assertThat(lines.get(3)).contains("90,000 ops/s", "4.50x", "ratio >= 3.0");
        assertThat(lines.get(4)).contains("300 ms", "<= 250 ms", "MISSED");
        assertThat(lines.get(6)).isEqualTo("2 of 3 targets met");
        assertThat(lines.get(2).indexOf('|')).isEqualTo(lines.get(5).indexOf('|'));
    }

    @Test
    void jsonCarriesEveryFigureWithRatioAndVerdict(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("out/e2e.json");

        report.writeJson(file);

        String json = Files.readString(file);
        assertThat(json)
                .contains("\"note\": \"a \\\"quoted\\\" word\"", "\"rounds\": 1000")
                .contains(
                        "{\"id\": \"rt_p50\", \"label\": \"round trip p50\", \"value\": 30, \"unit\": \"us\", \"baseline\": \"floor p50\","
                                + " \"baselineValue\": 20, \"ratio\": 1.5, \"target\": \"ratio <= 1.5\", \"met\": true, \"unmeasured\": null}")
                .contains("\"id\": \"floor\"", "\"baseline\": null", "\"met\": null")
                .contains("\"targetsMet\": 2", "\"targetsTotal\": 3");
    }

    @Test
    void aFigureThatCouldNotBeMeasuredSaysWhyAndIsNeitherMetNorMissed() {
        Report partial = new Report(
                Map.of(),
                List.of(
                        Figure.atMostTimes("b_c", "bounce, C", 3, "us", "ucx", 2, 2.0),
                        Figure.unmeasured(
                                "b_java", "bounce, Java", "us", "ucx", 2, Figure.atMostTarget(2.0), "not supported")));

        List<String> lines = partial.table().lines().toList();
        assertThat(lines.get(3))
                .contains("bounce, Java", "not supported", "ucx 2.00 us", "ratio <= 2.0")
                .doesNotContain("x |", "MISSED", "met");
        assertThat(lines.get(4)).isEqualTo("1 of 1 targets met (1 more not measured)");
        assertThat(partial.json())
                .contains("{\"id\": \"b_java\", \"label\": \"bounce, Java\", \"value\": null, \"unit\": \"us\","
                        + " \"baseline\": \"ucx\", \"baselineValue\": 2, \"ratio\": null, \"target\": \"ratio <= 2.0\", \"met\": null,"
                        + " \"unmeasured\": \"not supported\"}");
    }

    @Test
    void withEveryTargetNotMeasuredTheTargetColumnsAndTheCountStay() {
        Report none = new Report(
                Map.of(),
                List.of(
                        Figure.missing("overlap", "overlap, 1 MiB", "%", ">= 90.0 %", "not measured"),
                        Figure.plain("mpi", "Open MPI, 1 MiB", 80, "us")));

        List<String> lines = none.table().lines().toList();
        assertThat(lines.get(0)).contains("| target", "| met?");
        assertThat(lines.get(2)).contains("overlap, 1 MiB", "not measured", ">= 90.0 %", "| -");
        assertThat(lines.get(4)).isEqualTo("0 of 0 targets met (1 more not measured)");
        assertThat(none.json())
                .contains("\"baseline\": null, \"baselineValue\": null, \"ratio\": null, \"target\": \">= 90.0 %\"");
    }

    @Test
    void aFigureAtLeastALimitIsMetAtTheLimit() {
        assertThat(Figure.atLeast("o", "overlap", 90, "%", 90)).satisfies(f -> {
            assertThat(f.met()).isTrue();
            assertThat(f.target()).isEqualTo(">= 90.0 %");
        });
        assertThat(Figure.atLeast("o", "overlap", 89.9, "%", 90).met()).isFalse();
    }

    @Test
    void cpuFiguresListTheirProcessesInALastColumnAndInTheJson() {
        Map<String, Long> nanos = new java.util.LinkedHashMap<>();
        nanos.put("host", 12_000_000L);
        nanos.put("worker", 8_300_000L);
        Map<String, Long> floorNanos = new java.util.LinkedHashMap<>();
        floorNanos.put("client", 5_000_000L);
        floorNanos.put("server", 3_000_000L);
        Report cpu = new Report(
                Map.of(),
                List.of(
                        Figure.cpuPerOp(
                                "cpu_rt",
                                "CPU per round trip",
                                new CpuCost(nanos, 1000),
                                "floor",
                                new CpuCost(floorNanos, 1000)),
                        Figure.plain("rt_p50", "round trip p50", 30, "us")));

        List<String> lines = cpu.table().lines().toList();

        assertThat(lines.get(0)).endsWith("| per process");
        assertThat(lines.get(2))
                .contains("CPU per round trip", "20.3 us", "floor 8.00 us", "2.54x")
                .endsWith("| host 12.0 + worker 8.30");
        assertThat(lines.get(3)).contains("round trip p50").doesNotContain("host");
        assertThat(cpu.json())
                .contains(
                        "\"id\": \"cpu_rt\"",
                        "\"value\": 20.3",
                        "\"ratio\": 2.5375",
                        "\"unmeasured\": null, \"parts\": {\"host\": 12, \"worker\": 8.3}}")
                .contains(
                        "{\"id\": \"rt_p50\", \"label\": \"round trip p50\", \"value\": 30, \"unit\": \"us\", \"baseline\": null,"
                                + " \"baselineValue\": null, \"ratio\": null, \"target\": null, \"met\": null, \"unmeasured\": null}");
    }
}
