// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class OsuOutputTest {
    /** What osu_iallreduce 7.4 printed here under mpirun, with a warning and the library's lines mixed in. */
    private static final String PRINTED = """
            urom_mpi: offloading allreduce,reduce (>=0 bytes) to worker_coll workers; non-blocking forms; connecting lazily

            # OSU MPI Non-blocking Allreduce Latency Test v7.4
            # Overall = Coll. Init + Compute + MPI_Test + MPI_Wait

            # Datatype: MPI_FLOAT.
            # Size           Overall(us)       Compute(us)    Pure Comm.(us)        Overlap(%)        Validation
            8                       2.85              1.57              1.16              0.00              Pass
            [host:01234] 1 more process has sent help message help-mpi-btl-base.txt / btl:no-nics
            65536                  38.06             20.15             18.33              2.27              Pass
            1048576               780.97            388.06            360.61              0.00              Fail
            urom_mpi: stats: offloaded 42, fell back 0, failed 0, teams 2 (all ranks)
            """;

    @Test
    void readsTheTitleAndEveryRowAndSkipsWhatIsNotARow() {
        OsuOutput output = OsuOutput.parse(PRINTED);

        assertThat(output.title()).isEqualTo("OSU MPI Non-blocking Allreduce Latency Test v7.4");
        assertThat(output.rows())
                .containsExactly(
                        new OsuOutput.Row(8, 2.85, 1.57, 1.16, 0.00, true),
                        new OsuOutput.Row(65536, 38.06, 20.15, 18.33, 2.27, true),
                        new OsuOutput.Row(1048576, 780.97, 388.06, 360.61, 0.00, false));
        assertThat(output.row(65536).pureUs()).isEqualTo(18.33);
        assertThat(output.row(16)).isNull();
        assertThat(OsuBench.Stats.find(PRINTED)).contains(new OsuBench.Stats(42, 0, 0, 2));
    }

    @Test
    void rowsWithoutValidationAndMalformedOnesAreToldApart() {
        OsuOutput output = OsuOutput.parse("""
                16 3.0 1.5 1.4 10.0
                32 3.0 1.5 1.4 10.0 Maybe
                64 3.0 -1.5 1.4 10.0 Pass
                128 NaN 1.5 1.4 10.0 Pass
                x 3.0 1.5 1.4 10.0 Pass
                256 3.0 1.5 1.4
                """);

        assertThat(output.rows()).containsExactly(new OsuOutput.Row(16, 3.0, 1.5, 1.4, 10.0, null));
        assertThat(OsuOutput.parse("").rows()).isEmpty();
    }

    @Property
    void whatOsuPrintsReadsBack(@ForAll("tables") List<OsuOutput.Row> rows) {
        StringBuilder printed =
                new StringBuilder("# OSU MPI Non-blocking Alltoall Latency Test v7.4\n# Size  Overall(us)\n");
        rows.forEach(r -> printed.append(osuRow(r)).append('\n'));

        assertThat(OsuOutput.parse(printed.toString()).rows()).containsExactlyElementsOf(rows);
    }

    /** A row as OSU prints it: fixed-width columns, two decimals. */
    private static String osuRow(OsuOutput.Row row) {
        String line = String.format(
                Locale.ROOT,
                "%-10d%18.2f%18.2f%18.2f%18.2f",
                row.bytes(),
                row.overallUs(),
                row.computeUs(),
                row.pureUs(),
                row.overlapPct());
        return row.validated() == null
                ? line
                : line + String.format(Locale.ROOT, "%18s", row.validated() ? "Pass" : "Fail");
    }

    @Provide
    Arbitrary<List<OsuOutput.Row>> tables() {
        Arbitrary<Double> us = Arbitraries.integers().between(0, 100_000_000).map(v -> v / 100.0);
        Arbitrary<OsuOutput.Row> row = Combinators.combine(
                        Arbitraries.longs().between(0, 1L << 40),
                        us,
                        us,
                        us,
                        Arbitraries.integers().between(0, 10_000).map(v -> v / 100.0),
                        Arbitraries.of(Boolean.TRUE, Boolean.FALSE).injectNull(0.3))
                .as(OsuOutput.Row::new);
        return row.list().ofMaxSize(30);
    }
}
