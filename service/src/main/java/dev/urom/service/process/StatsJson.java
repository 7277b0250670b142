// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import dev.urom.service.metrics.PluginCounts;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import java.io.IOException;
import java.io.Writer;
import java.util.Map;

/**
 * A {@link WorkerStatsSnapshot} as the one-line JSON of a STATS answer; thread-safe and stateless.
 * Reading throws {@link IllegalArgumentException} with one line naming the field and the reason.
 *
 * <p>Workers only write: with jackson-core's streaming generator, so that a worker never loads
 * jackson-databind (some 450 classes, a tenth of a worker's start). Only the daemon reads, through
 * a holder class that a worker never initializes.
 */
final class StatsJson {
    private static final JsonFactory WRITER = new JsonFactory();

    private StatsJson() {}

    /** Appends {@code snapshot} to {@code out} as JSON on one line. */
    static void write(WorkerStatsSnapshot snapshot, Writer out) {
        try (JsonGenerator json = WRITER.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField("sequence", snapshot.sequence());
            json.writeNumberField("connectionsAccepted", snapshot.connectionsAccepted());
            json.writeNumberField("connectionsOpen", snapshot.connectionsOpen());
            json.writeNumberField("connectionsRefused", snapshot.connectionsRefused());
            json.writeObjectFieldStart("plugins");
            for (Map.Entry<String, PluginCounts> plugin : snapshot.plugins().entrySet()) {
                PluginCounts counts = plugin.getValue();
                json.writeObjectFieldStart(plugin.getKey());
                json.writeNumberField("commands", counts.commands());
                json.writeObjectFieldStart("notifications");
                for (Map.Entry<String, Long> notification :
                        counts.notifications().entrySet()) {
                    json.writeNumberField(notification.getKey(), notification.getValue());
                }
                json.writeEndObject();
                json.writeArrayFieldStart("latencyBuckets");
                for (long bucket : counts.latencyBuckets()) {
                    json.writeNumber(bucket);
                }
                json.writeEndArray();
                json.writeNumberField("latencySumNanos", counts.latencySumNanos());
                json.writeEndObject();
            }
            json.writeEndObject();
            json.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("a snapshot could not be written as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Reads the counts of the STATS answer tagged {@code tag}.
     *
     * @throws IllegalArgumentException {@code STATS <tag>: } and what is wrong, on one line
     */
    static WorkerStatsSnapshot read(String tag, String json) {
        try {
            WorkerStatsSnapshot snapshot = Reader.JSON.readValue(json, WorkerStatsSnapshot.class);
            if (snapshot == null) {
                throw new IllegalArgumentException("STATS " + tag + ": the counts are null");
            }
            return snapshot;
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalArgumentException("STATS " + tag + ": " + WorkerLines.oneLine(cause.getMessage()), e);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "STATS " + tag + ": the counts are not valid JSON: " + WorkerLines.oneLine(e.getOriginalMessage()),
                    e);
        }
    }

    /** The daemon's side: a class of its own so that a worker does not initialize it. */
    private static final class Reader {
        static final ObjectMapper JSON = new ObjectMapper()
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }
}
