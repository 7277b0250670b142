// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class CollResultsTest {
    /** What the sample writes with --impl both (the C plugin and Open MPI in one run). */
    static final String BOTH = """
            {"label": "offload-c", "ranks": 2, "plugin": "worker_coll", "roundtrip_us": 12.500, "results": [
              {"collective": "allreduce", "impl": "offload-c", "bytes": 8, "pure_us": 30.000, "overall_us": 33.000,
               "compute_us": 30.100, "overlap_pct": 90.33},
              {"collective": "allreduce", "impl": "mpi", "bytes": 8, "pure_us": 3.000, "overall_us": 5.000, "compute_us": 3.100,
               "overlap_pct": 36.67}
            ]}
            """;
    /** What it writes with --impl mpi --skip-check: no service, no round trip. */
    static final String MPI_ALONE = """
            {"label": "mpi-all-cpus", "ranks": 2, "plugin": "none", "roundtrip_us": 0.000, "results": [
              {"collective": "allreduce", "impl": "mpi", "bytes": 8, "pure_us": 2.000, "overall_us": 3.000, "compute_us": 2.100,
               "overlap_pct": 55.00}
            ]}
            """;

    @Test
    void theSamplesMpiRowsTakeThePlacementsNameAndOffloadedRunsTheirRoundTrip() {
        CollResults both = CollResults.parse(BOTH, "mpi-host-cpus");

        assertThat(both.rows())
                .containsExactly(
                        new CollResults.Row("allreduce", "offload-c", 8, 30, 33, 30.1, 90.33),
                        new CollResults.Row("allreduce", "mpi-host-cpus", 8, 3, 5, 3.1, 36.67));
        assertThat(both.roundTripsUs()).isEqualTo(Map.of("offload-c", 12.5));
        assertThat(CollResults.parse(MPI_ALONE, "mpi-all-cpus").roundTripsUs()).isEmpty();
    }

    @Test
    void runsMergeIntoOneSetOfRowsAndRoundTrips() {
        CollResults merged = CollResults.empty()
                .merge(CollResults.parse(BOTH, "mpi-host-cpus"))
                .merge(CollResults.parse(MPI_ALONE, "mpi-all-cpus"));

        assertThat(merged.rows())
                .extracting(CollResults.Row::impl)
                .containsExactly("offload-c", "mpi-host-cpus", "mpi-all-cpus");
        assertThat(merged.row("allreduce", "mpi-all-cpus", 8))
                .map(CollResults.Row::pureUs)
                .contains(2.0);
        assertThat(merged.row("allreduce", "mpi-all-cpus", 16)).isEmpty();
        assertThat(merged.has("offload-java")).isFalse();
        assertThat(merged.roundTripsUs()).containsOnlyKeys("offload-c");
    }

    @Test
    void aRowMeasuredTwiceOrAFileThatIsNotTheSamplesIsAnError() {
        CollResults once = CollResults.parse(MPI_ALONE, "mpi-all-cpus");
        assertThatThrownBy(() -> once.merge(once)).hasMessage("allreduce 8 B mpi-all-cpus was measured twice");
        CollResults c = CollResults.parse(BOTH, "mpi-host-cpus");
        assertThatThrownBy(() -> c.merge(CollResults.parse(BOTH, "mpi-all-cpus")))
                .hasMessage("allreduce 8 B offload-c was measured twice");
        assertThatThrownBy(() -> CollResults.parse("{\"results\": [", "mpi"))
                .hasMessageStartingWith("the sample's results are not JSON");
        assertThatThrownBy(() -> CollResults.parse("{}", "mpi"))
                .hasMessage("the sample's results have no \"results\" list");
        assertThatThrownBy(() -> CollResults.parse("{\"results\": [{\"impl\": \"mpi\"}]}", "mpi"))
                .hasMessageStartingWith("a row of the sample's results has no text collective");
    }
}
