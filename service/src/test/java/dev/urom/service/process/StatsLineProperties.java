// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.urom.service.metrics.LatencyBuckets;
import dev.urom.service.metrics.PluginCounts;
import dev.urom.service.metrics.TestCounts;
import dev.urom.service.metrics.WorkerStats;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.process.WorkerLine.Stats;
import dev.urom.service.process.WorkerLine.StatsRequest;
import dev.urom.spi.UromStatus;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** The STATS lines of {@link WorkerLines}: round trips, and what the codec makes of STATS lines that are not valid. */
class StatsLineProperties {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String NAME_CHARS = "ab_Z9 /{}:,\"\\\n\tüé漢";
    private static final String[] TOP_LEVEL_FIELDS = {
        "sequence", "connectionsAccepted", "connectionsOpen", "connectionsRefused"
    };
    private static final String[] PLUGIN_COUNT_FIELDS = {"commands", "latencySumNanos"};
    private static final String[] PLUGIN_FIELDS = {"commands", "notifications", "latencyBuckets", "latencySumNanos"};
    private static final String ZERO_BUCKETS = "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]";

    // ---- generators

    static Arbitrary<Long> counts() {
        return Arbitraries.longs().between(0, Long.MAX_VALUE);
    }

    static Arbitrary<String> pluginNames() {
        return Arbitraries.oneOf(
                Arbitraries.strings().withChars(NAME_CHARS.toCharArray()).ofMaxLength(8),
                Arbitraries.of("worker_graph", WorkerStats.UNKNOWN_PLUGIN, "\uD83D\uDE00 emoji", ""));
    }

    static Arbitrary<String> statuses() {
        return Arbitraries.of(UromStatus.class).map(Enum::name);
    }

    static Arbitrary<PluginCounts> pluginCounts() {
        return Combinators.combine(
                        counts(),
                        Arbitraries.maps(statuses(), counts()).ofMaxSize(4),
                        counts().list().ofSize(LatencyBuckets.COUNT),
                        counts())
                .as(PluginCounts::new);
    }

    static Arbitrary<WorkerStatsSnapshot> snapshots(int minPlugins) {
        return Combinators.combine(
                        counts(),
                        counts(),
                        counts(),
                        counts(),
                        Arbitraries.maps(pluginNames(), pluginCounts())
                                .ofMinSize(minPlugins)
                                .ofMaxSize(3))
                .as(WorkerStatsSnapshot::new);
    }

    @Provide
    Arbitrary<WorkerStatsSnapshot> snapshots() {
        return snapshots(0);
    }

    @Provide
    Arbitrary<WorkerStatsSnapshot> snapshotsWithAPlugin() {
        return snapshots(1);
    }

    @Provide
    Arbitrary<String> tags() {
        return Arbitraries.oneOf(counts().map(String::valueOf), Arbitraries.just("final"));
    }

    @Provide
    Arbitrary<String> anyLines() {
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(60);
        Arbitrary<String> digits = Arbitraries.strings().numeric().ofMaxLength(25);
        Arbitrary<String> jsonish = Arbitraries.strings()
                .withChars("{}[]\":,.0123456789-eE \\nultrfas".toCharArray())
                .ofMaxLength(60);
        return Arbitraries.oneOf(
                any,
                any.map(s -> "STATS " + s),
                digits.map(s -> "STATS " + s),
                Combinators.combine(tags(), any).as((tag, s) -> "STATS " + tag + " " + s),
                Combinators.combine(tags(), jsonish).as((tag, s) -> "STATS " + tag + " " + s),
                Combinators.combine(tags(), jsonish).as((tag, s) -> "STATS " + tag + " {" + s + "}"));
    }

    enum Mutation {
        NEGATIVE_TOP_LEVEL_COUNT,
        NEGATIVE_PLUGIN_COUNT,
        NEGATIVE_BUCKET,
        NEGATIVE_NOTIFICATION,
        TOO_FEW_BUCKETS,
        TOO_MANY_BUCKETS,
        UNKNOWN_FIELD,
        UNKNOWN_PLUGIN_FIELD,
        TRAILING_GARBAGE,
        MISSING_FIELD,
        MISSING_PLUGIN_FIELD,
        NULL_FIELD,
        NULL_PLUGIN_FIELD,
        STRING_FOR_A_COUNT
    }

    // ---- properties

    @Property
    void aValidSnapshotRoundTripsWithItsTag(
            @ForAll("snapshots") WorkerStatsSnapshot snapshot, @ForAll("tags") String tag) {
        Stats reply = parseReply(reply(tag, snapshot));

        assertThat(reply).isEqualTo(new Stats(request(tag), snapshot));
    }

    @Property
    void aReplyIsOneLineStartingWithItsTag(
            @ForAll("snapshots") WorkerStatsSnapshot snapshot, @ForAll("tags") String tag) {
        String line = reply(tag, snapshot);

        assertThat(line).startsWith("STATS " + tag + " {").doesNotContain("\n", "\r");
    }

    @Property
    void aRequestRoundTrips(@ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long n) {
        assertThat(WorkerLines.encode(new StatsRequest(n))).isEqualTo("STATS " + n);
        assertThat(parseRequest(WorkerLines.encode(new StatsRequest(n)))).isEqualTo(n);
    }

    @Property
    void parsingAnyStringAsARequestGivesMinusOneOrTheNumberItSpells(@ForAll("anyLines") String line) {
        long n = parseRequest(line);

        assertThat(n).isGreaterThanOrEqualTo(-1);
        if (n >= 0) {
            assertThat(line).matches("STATS [0-9]+");
            assertThat(new BigInteger(line.substring("STATS ".length()))).isEqualTo(BigInteger.valueOf(n));
        }
    }

    @Property
    void parsingAnyStringAsAReplySucceedsOrThrowsOneLineIllegalArgument(@ForAll("anyLines") String line) {
        Throwable thrown = catchThrowable(() -> WorkerLines.decode(line));

        if (thrown != null) {
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
            assertThat(thrown.getMessage()).isNotBlank().doesNotContain("\n");
        }
    }

    @Property
    void aValidLineWithMutatedCountsIsRefusedWithOneLine(
            @ForAll("snapshotsWithAPlugin") WorkerStatsSnapshot snapshot,
            @ForAll("tags") String tag,
            @ForAll Mutation mutation,
            @ForAll @IntRange(min = 0, max = 1000) int pick,
            @ForAll @LongRange(min = Long.MIN_VALUE, max = -1) long negative)
            throws Exception {
        String line = mutate(reply(tag, snapshot), tag, mutation, pick, negative);

        assertThatThrownBy(() -> parseReply(line))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("STATS " + tag + ": ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private static String mutate(String line, String tag, Mutation mutation, int pick, long negative) throws Exception {
        String prefix = "STATS " + tag + " ";
        ObjectNode root = (ObjectNode) JSON.readTree(line.substring(prefix.length()));
        ObjectNode plugins = (ObjectNode) root.get("plugins");
        List<String> names = new ArrayList<>();
        plugins.fieldNames().forEachRemaining(names::add);
        ObjectNode plugin = (ObjectNode) plugins.get(names.get(pick % names.size()));
        ArrayNode buckets = (ArrayNode) plugin.get("latencyBuckets");
        String suffix = "";
        switch (mutation) {
            case NEGATIVE_TOP_LEVEL_COUNT -> root.put(TOP_LEVEL_FIELDS[pick % TOP_LEVEL_FIELDS.length], negative);
            case NEGATIVE_PLUGIN_COUNT -> plugin.put(PLUGIN_COUNT_FIELDS[pick % PLUGIN_COUNT_FIELDS.length], negative);
            case NEGATIVE_BUCKET -> buckets.set(pick % LatencyBuckets.COUNT, negative);
            case NEGATIVE_NOTIFICATION ->
                ((ObjectNode) plugin.get("notifications"))
                        .put(UromStatus.values()[pick % UromStatus.values().length].name(), negative);
            case TOO_FEW_BUCKETS -> {
                int keep = pick % LatencyBuckets.COUNT;
                while (buckets.size() > keep) {
                    buckets.remove(buckets.size() - 1);
                }
            }
            case TOO_MANY_BUCKETS -> {
                for (int i = 0; i <= pick % 5; i++) {
                    buckets.add(0);
                }
            }
            case UNKNOWN_FIELD -> root.put("extra" + pick, pick);
            case UNKNOWN_PLUGIN_FIELD -> plugin.put("timedCommands", pick);
            case TRAILING_GARBAGE ->
                suffix = List.of("x", "}", "]", "{}", "1", " 0", ",", "\"s\"", "null")
                        .get(pick % 9);
            case MISSING_FIELD -> root.remove(pick % 5 == 4 ? "plugins" : TOP_LEVEL_FIELDS[pick % 4]);
            case MISSING_PLUGIN_FIELD -> plugin.remove(PLUGIN_FIELDS[pick % PLUGIN_FIELDS.length]);
            case NULL_FIELD -> root.putNull(pick % 5 == 4 ? "plugins" : TOP_LEVEL_FIELDS[pick % 4]);
            case NULL_PLUGIN_FIELD -> plugin.putNull(PLUGIN_FIELDS[pick % PLUGIN_FIELDS.length]);
            case STRING_FOR_A_COUNT -> root.put(TOP_LEVEL_FIELDS[pick % TOP_LEVEL_FIELDS.length], "many");
        }
        return prefix + JSON.writeValueAsString(root) + suffix;
    }

    // ---- the codec as the old STATS helpers were called

    private static long request(String tag) {
        return tag.equals("final") ? Stats.FINAL : Long.parseLong(tag);
    }

    private static String reply(String tag, WorkerStatsSnapshot snapshot) {
        return WorkerLines.encode(new Stats(request(tag), snapshot));
    }

    /** The answer {@code line} reads as; what it throws, or an assertion error for another kind of line. */
    private static Stats parseReply(String line) {
        WorkerLine read = WorkerLines.decode(line);
        assertThat(read).isInstanceOf(Stats.class);
        return (Stats) read;
    }

    /** The request number {@code line} reads as, or -1 when it is not a request. */
    private static long parseRequest(String line) {
        try {
            return WorkerLines.decode(line) instanceof StatsRequest request ? request.number() : -1;
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    // ---- examples with exact messages

    private static String line(String tag, String pluginsJson) {
        return "STATS " + tag
                + " {\"sequence\":1,\"connectionsAccepted\":2,\"connectionsOpen\":1,\"connectionsRefused\":0,\"plugins\":"
                + pluginsJson + "}";
    }

    private static String plugin(long commands, String notificationsJson, String bucketsJson) {
        return "{\"commands\":" + commands + ",\"notifications\":" + notificationsJson + ",\"latencyBuckets\":"
                + bucketsJson + ",\"latencySumNanos\":0}";
    }

    @Example
    void aHandWrittenLineIsRead() {
        Stats reply = parseReply(
                line("12", "{\"p\":" + plugin(3, "{\"SUCCESS\":2}", "[1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]") + "}"));

        assertThat(reply.request()).isEqualTo(12);
        assertThat(reply.snapshot())
                .isEqualTo(new WorkerStatsSnapshot(
                        1,
                        2,
                        1,
                        0,
                        java.util.Map.of(
                                "p",
                                new PluginCounts(
                                        3, java.util.Map.of("SUCCESS", 2L), TestCounts.buckets(0, 1, 15, 1), 0))));
    }

    @Example
    void aLineNotStartingWithStatsIsRefused() {
        assertThatThrownBy(() -> parseReply("stats 1 {}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a worker line: it starts with 'stats 1 {}'");
    }

    @Example
    void aLongLineNotStartingWithStatsIsShownAbbreviatedWithoutControlCharacters() {
        String line = "READY\t" + "x".repeat(60);

        assertThatThrownBy(() -> parseReply(line))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a worker line: it starts with 'READY?" + "x".repeat(34) + "...'");
    }

    @Example
    void aLineWithoutATagIsRefused() {
        assertThatThrownBy(() -> parseReply("STATS {}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a STATS line without a tag and counts");
    }

    @Example
    void aTagThatIsNeitherANumberNorFinalIsRefused() {
        assertThatThrownBy(() -> parseReply(line("FINAL", "{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS tag 'FINAL' is neither a request number nor 'final'");
        assertThatThrownBy(() -> parseReply(line("-1", "{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS tag '-1' is neither a request number nor 'final'");
        assertThatThrownBy(() -> parseReply(line("99999999999999999999", "{}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS tag '99999999999999999999' is neither a request number nor 'final'");
    }

    @Example
    void aBucketListOfTheWrongLengthIsRefusedNamingItsLength() {
        assertThatThrownBy(() -> parseReply(line("3", "{\"p\":" + plugin(1, "{}", "[1,2]") + "}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS 3: latencyBuckets has 2 counts, not 16");
        assertThatThrownBy(() ->
                        parseReply(line("3", "{\"p\":" + plugin(1, "{}", "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]") + "}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS 3: latencyBuckets has 17 counts, not 16");
    }

    @Example
    void aNegativeCountIsRefusedNamingItsField() {
        assertThatThrownBy(() -> parseReply(line("final", "{\"p\":" + plugin(-5, "{}", ZERO_BUCKETS) + "}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS final: commands is negative (-5)");
        assertThatThrownBy(() -> parseReply(line("4", "{\"p\":" + plugin(0, "{\"AGAIN\":-2}", ZERO_BUCKETS) + "}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS 4: notifications.AGAIN is negative (-2)");
        assertThatThrownBy(
                        () -> parseReply(
                                "STATS 4 {\"sequence\":1,\"connectionsAccepted\":2,\"connectionsOpen\":-1,\"connectionsRefused\":0,\"plugins\":{}}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS 4: connectionsOpen is negative (-1)");
    }

    @Example
    void nullCountsAreRefused() {
        assertThatThrownBy(() -> parseReply("STATS 5 null"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("STATS 5: the counts are null");
    }

    @Example
    void aMessageQuotingANotificationStatusWithALineBreakIsStillOneLine() {
        String line = line("6", "{\"p\":" + plugin(0, "{\"SUCCESS\\nFORGED LOG LINE\":-1}", ZERO_BUCKETS) + "}");

        assertThatThrownBy(() -> parseReply(line))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Example
    void aMessageQuotingAPluginNameWithALineBreakIsStillOneLine() {
        String line = line("6", "{\"a\\nb\":null}");

        assertThatThrownBy(() -> parseReply(line))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Example
    void parsingARequestTakesOnlyDecimalDigitsThatFitALong() {
        assertThat(parseRequest("STATS 0")).isZero();
        assertThat(parseRequest("STATS 007")).isEqualTo(7);
        assertThat(parseRequest("STATS 9223372036854775807")).isEqualTo(Long.MAX_VALUE);
        assertThat(parseRequest("STATS 9223372036854775808")).isEqualTo(-1);
        assertThat(parseRequest("STATS -1")).isEqualTo(-1);
        assertThat(parseRequest("STATS +1")).isEqualTo(-1);
        assertThat(parseRequest("STATS 1 ")).isEqualTo(-1);
        assertThat(parseRequest("STATS ")).isEqualTo(-1);
        assertThat(parseRequest("STATS \u0661")).isEqualTo(-1);
        assertThat(parseRequest("STATS 1 {}")).isEqualTo(-1);
    }
}
