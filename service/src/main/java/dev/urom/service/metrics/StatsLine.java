// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.metrics;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.io.IOException;
import java.io.StringWriter;
import java.util.Map;

/**
 * The lines a daemon and its worker exchange over the worker's stdin and stdout about counts.
 * The daemon asks with {@code STATS <n>} (n: a request number); the worker answers {@code STATS
 * <n> <json>}, and as it ends writes {@code STATS final <json>}. The JSON is a {@link
 * WorkerStatsSnapshot} on one line. Between them, a worker that has decided to end writes {@value
 * #ENDING} once, before any host can learn it has stopped; lines come out in the order they are
 * written, so a daemon that has read the answer to a request without an ENDING before it knows
 * that the worker had not decided to end when it answered.
 *
 * <p>Thread-safe and stateless.
 */
public final class StatsLine {
    /** The tag of the snapshot a worker writes as it ends. */
    public static final String FINAL = "final";
    /** The line a worker writes, once, when it has decided to end: it takes no new hosts from then on. */
    public static final String ENDING = "ENDING";
    private static final String PREFIX = "STATS ";
    /**
     * Workers only write snapshots: with jackson-core's streaming generator, so that a worker never
     * loads jackson-databind (some 450 classes, a tenth of a worker's start).
     */
    private static final JsonFactory WRITER = new JsonFactory();

    /** A worker's answer: its tag (a request number or {@value #FINAL}) and its counts. */
    public record Reply(String tag, WorkerStatsSnapshot snapshot) {}

    private StatsLine() {}

    /** The daemon's request number {@code n} (not negative). */
    public static String request(long n) {
        return PREFIX + n;
    }

    /** The request number in {@code line}, or -1 when it is not a request (a number of decimal digits that fits a long). */
    public static long parseRequest(String line) {
        if (!line.startsWith(PREFIX)) {
            return -1;
        }
        String number = line.substring(PREFIX.length());
        if (number.isEmpty() || !number.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return -1;
        }
        try {
            return Long.parseLong(number);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The answer line for {@code tag}: a request number or {@value #FINAL}. */
    public static String reply(String tag, WorkerStatsSnapshot snapshot) {
        StringWriter text = new StringWriter().append(PREFIX).append(tag).append(' ');
        try (JsonGenerator json = WRITER.createGenerator(text)) {
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
                for (Map.Entry<String, Long> notification : counts.notifications().entrySet()) {
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
        return text.toString();
    }

    /**
     * Reads an answer line.
     *
     * @throws IllegalArgumentException one line saying what is wrong with it
     */
    public static Reply parseReply(String line) {
        if (!line.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a STATS line: it starts with '" + abbreviate(line) + "'");
        }
        String rest = line.substring(PREFIX.length());
        int space = rest.indexOf(' ');
        if (space <= 0) {
            throw new IllegalArgumentException("a STATS line without a tag and counts");
        }
        String tag = rest.substring(0, space);
        if (!tag.equals(FINAL) && parseRequest(PREFIX + tag) < 0) {
            throw new IllegalArgumentException("STATS tag '" + abbreviate(tag) + "' is neither a request number nor '" + FINAL + "'");
        }
        try {
            WorkerStatsSnapshot snapshot = Reader.JSON.readValue(rest.substring(space + 1), WorkerStatsSnapshot.class);
            if (snapshot == null) {
                throw new IllegalArgumentException("STATS " + tag + ": the counts are null");
            }
            return new Reply(tag, snapshot);
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw new IllegalArgumentException("STATS " + tag + ": " + oneLine(cause.getMessage()), e);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("STATS " + tag + ": the counts are not valid JSON: " + oneLine(e.getOriginalMessage()), e);
        }
    }

    /** The daemon's side: it reads what workers write; a class of its own so that a worker does not initialize it. */
    private static final class Reader {
        static final ObjectMapper JSON = new ObjectMapper()
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    }

    private static String oneLine(String text) {
        return String.valueOf(text).replaceAll("\\p{Cntrl}", " ");
    }

    private static String abbreviate(String text) {
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
