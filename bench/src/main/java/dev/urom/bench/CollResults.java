// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The figures of {@link CollBench}'s runs of the {@code urom_coll} sample, merged: each run's
 * {@code --results} file read ({@link #parse}) with its implementations named as the report names
 * them, and the runs put together ({@link #merge}).
 *
 * <p>Immutable. {@link #parse} and {@link #merge} throw {@link IllegalStateException} with one line
 * (a file that is not the sample's JSON, a row measured twice).
 *
 * @param rows every measured row, in the order read
 * @param roundTripsUs the host-to-worker command round trip by offloaded implementation, µs
 */
record CollResults(List<Row> rows, Map<String, Double> roundTripsUs) {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One collective at one size through one implementation, as the sample averages it over the ranks. */
    record Row(
            String collective,
            String impl,
            long bytes,
            double pureUs,
            double overallUs,
            double computeUs,
            double overlapPct) {}

    CollResults {
        rows = List.copyOf(rows);
        roundTripsUs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(roundTripsUs));
    }

    static CollResults empty() {
        return new CollResults(List.of(), Map.of());
    }

    /**
     * The sample's results document {@code json}; its rows of impl {@code mpi} become {@code mpiAs}
     * ({@code mpi-host-cpus} or {@code mpi-all-cpus}), the others keep theirs ({@code offload-c},
     * {@code offload-java}). The round trip, when the run offloaded (plugin not {@code none}), is
     * that of each offloaded implementation it has rows of.
     */
    static CollResults parse(String json, String mpiAs) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the sample's results are not JSON: " + e.getOriginalMessage());
        }
        JsonNode results = root == null ? null : root.get("results");
        if (results == null || !results.isArray()) {
            throw new IllegalStateException("the sample's results have no \"results\" list");
        }
        List<Row> rows = new ArrayList<>();
        for (JsonNode r : results) {
            String impl = text(r, "impl");
            rows.add(new Row(
                    text(r, "collective"),
                    impl.equals("mpi") ? mpiAs : impl,
                    (long) number(r, "bytes"),
                    number(r, "pure_us"),
                    number(r, "overall_us"),
                    number(r, "compute_us"),
                    number(r, "overlap_pct")));
        }
        Map<String, Double> roundTrips = new LinkedHashMap<>();
        JsonNode plugin = root.get("plugin");
        if (plugin != null && !plugin.asText().equals("none")) {
            double roundTrip = number(root, "roundtrip_us");
            rows.stream()
                    .map(Row::impl)
                    .filter(i -> i.startsWith("offload-"))
                    .distinct()
                    .forEach(i -> roundTrips.put(i, roundTrip));
        }
        return new CollResults(rows, roundTrips);
    }

    /** These rows and round trips, then {@code other}'s; a row or round trip in both is an error. */
    CollResults merge(CollResults other) {
        List<Row> all = new ArrayList<>(rows);
        for (Row row : other.rows) {
            if (row(row.collective(), row.impl(), row.bytes()).isPresent()) {
                throw new IllegalStateException(
                        row.collective() + " " + row.bytes() + " B " + row.impl() + " was measured twice");
            }
            all.add(row);
        }
        Map<String, Double> roundTrips = new LinkedHashMap<>(roundTripsUs);
        other.roundTripsUs.forEach((impl, us) -> {
            if (roundTrips.putIfAbsent(impl, us) != null) {
                throw new IllegalStateException("the round trip of " + impl + " was measured twice");
            }
        });
        return new CollResults(all, roundTrips);
    }

    Optional<Row> row(String collective, String impl, long bytes) {
        return rows.stream()
                .filter(r -> r.collective().equals(collective) && r.impl().equals(impl) && r.bytes() == bytes)
                .findFirst();
    }

    /** Whether any row is of {@code impl}. */
    boolean has(String impl) {
        return rows.stream().anyMatch(r -> r.impl().equals(impl));
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalStateException("a row of the sample's results has no text " + field + ": " + node);
        }
        return value.asText();
    }

    private static double number(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isNumber()) {
            String where = node.has("collective") ? " in a row: " + node : "";
            throw new IllegalStateException("the sample's results have no number " + field + where);
        }
        return value.asDouble();
    }
}
