// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.urom.auth.AuthKey;
import dev.urom.auth.Principal;
import dev.urom.service.access.WorkerAccess;
import dev.urom.service.metrics.WorkerStatsSnapshot;
import dev.urom.service.process.WorkerLine.Access;
import dev.urom.service.process.WorkerLine.Ending;
import dev.urom.service.process.WorkerLine.Failed;
import dev.urom.service.process.WorkerLine.Ready;
import dev.urom.service.process.WorkerLine.Stats;
import dev.urom.service.process.WorkerLine.StatsRequest;
import dev.urom.spi.UromStatus;
import dev.urom.wire.ServiceAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Every line of the daemon-worker pipes through {@link WorkerLines}: round trips, and one-line refusals of what is not a line. */
class WorkerLinesProperties {
    private static final UromStatus[] FAILURES =
            Arrays.stream(UromStatus.values()).filter(s -> !s.isSuccess()).toArray(UromStatus[]::new);

    @Property
    void everyLineReadsBackEqual(@ForAll("lines") WorkerLine line) {
        String text = WorkerLines.encode(line);

        assertThat(WorkerLines.decode(text)).isEqualTo(line);
        if (text.chars().allMatch(c -> c < 128)) {
            assertThat(WorkerLines.decode(text.getBytes(StandardCharsets.US_ASCII)))
                    .as("from its bytes")
                    .isEqualTo(line);
        }
    }

    @Property
    void everyLineIsOneLine(@ForAll("lines") WorkerLine line) {
        assertThat(WorkerLines.encode(line))
                .doesNotContain("\n", "\r")
                .hasSizeLessThanOrEqualTo(WorkerLines.MAX_LINE_LENGTH);
    }

    @Property
    void aLineWithAnUnknownVerbIsRefusedNamingHowItStarts(
            @ForAll("unknownVerbs") String verb, @ForAll("printable") String rest) {
        String line = verb + (rest.isEmpty() ? "" : " " + rest);

        assertThatThrownBy(() -> WorkerLines.decode(line))
                .isInstanceOf(WorkerLines.UnknownLine.class)
                .hasMessageStartingWith("not a worker line: it starts with '")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n", "\r"));
    }

    @Property(tries = 20)
    void anOverlongLineIsRefusedBeforeItIsRead(
            @ForAll("lines") WorkerLine line, @ForAll @IntRange(min = 1, max = 100) int over) {
        String text = WorkerLines.encode(line);
        String overlong = text + " " + "x".repeat(WorkerLines.MAX_LINE_LENGTH - text.length() - 1 + over);

        assertThatThrownBy(() -> WorkerLines.decode(overlong))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a worker line of " + overlong.length() + " characters is over the limit of "
                        + WorkerLines.MAX_LINE_LENGTH);
        byte[] written = text.getBytes(StandardCharsets.UTF_8);
        byte[] overlongBytes = Arrays.copyOf(written, WorkerLines.MAX_LINE_LENGTH + over);
        Arrays.fill(overlongBytes, written.length, overlongBytes.length, (byte) 'x');
        assertThatThrownBy(() -> WorkerLines.decode(overlongBytes))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a worker line of " + overlongBytes.length + " bytes is over the limit of "
                        + WorkerLines.MAX_LINE_LENGTH);
    }

    @Property
    void aBadNumberIsRefusedNamingIt(@ForAll("badNumbers") String number, @ForAll boolean answer) {
        String line = "STATS " + number + (answer ? " {}" : "");

        assertThatThrownBy(() -> WorkerLines.decode(line))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .startsWith(answer ? "STATS tag '" : "a STATS line without a tag and counts")
                        .doesNotContain("\n", "\r"));
    }

    @Property(tries = 2000)
    void anyLineIsReadOrRefusedInOneLine(@ForAll("hostile") String line) {
        Throwable thrown = catchThrowable(() -> WorkerLines.decode(line));

        if (thrown != null) {
            assertThat(thrown).isInstanceOf(IllegalArgumentException.class);
            assertThat(thrown.getMessage()).isNotBlank().doesNotContain("\n", "\r");
        }
    }

    @Example
    void missingFieldsAreNamed() {
        assertThatThrownBy(() -> WorkerLines.decode("READY")).hasMessage("a READY line without an address");
        assertThatThrownBy(() -> WorkerLines.decode("READY  ")).hasMessage("a READY line without an address");
        assertThatThrownBy(() -> WorkerLines.decode("READY nowhere"))
                .hasMessageStartingWith("the address of a READY line: ");
        assertThatThrownBy(() -> WorkerLines.decode("FAILED")).hasMessage("a FAILED line without a status");
        assertThatThrownBy(() -> WorkerLines.decode("STATS"))
                .hasMessage("a STATS line without a request number, or a tag and counts");
        assertThatThrownBy(() -> WorkerLines.decode("STATS 99999999999999999999"))
                .hasMessage("STATS request number '99999999999999999999' is over 9223372036854775807");
        assertThatThrownBy(() -> WorkerLines.decode("ENDING now"))
                .hasMessage("an ENDING line with something after ENDING");
        assertThatThrownBy(() -> WorkerLines.decode("ACCESS unix:5 -"))
                .hasMessage("the daemon's first line is not ACCESS <owner> <data key> <seal key>");
    }

    @Example
    void aFailedLineWhoseStatusIsNoFailureIsReadAsAFailedStartWithTheWholeReason() {
        assertThat(WorkerLines.decode("FAILED NOT_FOUND plugin 'x' is gone"))
                .isEqualTo(new Failed(UromStatus.NOT_FOUND, "plugin 'x' is gone"));
        assertThat(WorkerLines.decode("FAILED SUCCESS all good"))
                .isEqualTo(new Failed(UromStatus.INITIALIZATION, "SUCCESS all good"));
        assertThat(WorkerLines.decode("FAILED urom-launch: no such file"))
                .isEqualTo(new Failed(UromStatus.INITIALIZATION, "urom-launch: no such file"));
        assertThat(WorkerLines.decode("FAILED IO_FAILED")).isEqualTo(new Failed(UromStatus.IO_FAILED, ""));
        assertThat(WorkerLines.decode("FAILED ")).isEqualTo(new Failed(UromStatus.INITIALIZATION, ""));
    }

    @Example
    void theBytesOnThePipeAreTheOnesBothSidesHaveAlwaysWritten() {
        assertThat(WorkerLines.encode(new Ready(ServiceAddress.parse("unix:/run/w.sock"))))
                .isEqualTo("READY unix:/run/w.sock");
        assertThat(WorkerLines.encode(new Failed(UromStatus.BAD_CONFIG, "no\naccess")))
                .isEqualTo("FAILED BAD_CONFIG no access");
        assertThat(WorkerLines.encode(new Failed(UromStatus.BAD_CONFIG, ""))).isEqualTo("FAILED BAD_CONFIG ");
        assertThat(WorkerLines.encode(new StatsRequest(7))).isEqualTo("STATS 7");
        assertThat(WorkerLines.encode(Stats.last(WorkerStatsSnapshot.EMPTY)))
                .startsWith("STATS final {\"sequence\":0,");
        assertThat(WorkerLines.encode(new Ending())).isEqualTo("ENDING");
    }

    @Example
    void aLineOfNoSuccessStatusCannotBeMade() {
        assertThatThrownBy(() -> new Failed(UromStatus.SUCCESS, "x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StatsRequest(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Stats(-2, WorkerStatsSnapshot.EMPTY)).isInstanceOf(IllegalArgumentException.class);
    }

    @Provide
    Arbitrary<WorkerLine> lines() {
        return Arbitraries.oneOf(
                accessLines(),
                readyLines(),
                failedLines(),
                Arbitraries.longs().between(0, Long.MAX_VALUE).map(StatsRequest::new),
                Combinators.combine(
                                Arbitraries.longs().between(Stats.FINAL, Long.MAX_VALUE),
                                StatsLineProperties.snapshots(0))
                        .as(Stats::new),
                Arbitraries.just(new Ending()));
    }

    private static Arbitrary<WorkerLine> accessLines() {
        Arbitrary<Principal> owners = Arbitraries.oneOf(
                Arbitraries.longs()
                        .between(0, 0xffff_fffeL)
                        .map(uid -> new Principal(Principal.Kind.UNIX, Long.toString(uid))),
                Arbitraries.strings()
                        .alpha()
                        .numeric()
                        .ofMinLength(1)
                        .ofMaxLength(20)
                        .map(Principal::key),
                Arbitraries.just(Principal.ANONYMOUS));
        Arbitrary<byte[]> secrets = Arbitraries.bytes().array(byte[].class).ofSize(AuthKey.MIN_SECRET_BYTES);
        return Combinators.combine(owners, secrets, secrets)
                .as((owner, secret, daemonSecret) -> new Access(WorkerAccess.of(
                        owner,
                        owner.kind() == Principal.Kind.KEY
                                ? Optional.of(AuthKey.of(owner.name(), secret))
                                : Optional.empty(),
                        daemonSecret)));
    }

    private static Arbitrary<WorkerLine> readyLines() {
        return Arbitraries.oneOf(
                        Arbitraries.strings()
                                .withCharRange('a', 'z')
                                .ofMinLength(1)
                                .ofMaxLength(30)
                                .map(n -> ServiceAddress.parse("unix:/run/urom/" + n + ".sock")),
                        Arbitraries.integers().between(0, 65535).map(port -> ServiceAddress.tcp("127.0.0.1", port)))
                .map(Ready::new);
    }

    private static Arbitrary<WorkerLine> failedLines() {
        Arbitrary<String> reasons =
                Arbitraries.strings().withChars("ab :'\n\r\t-é漢").ofMaxLength(40);
        return Combinators.combine(Arbitraries.of(FAILURES), reasons).as(Failed::new);
    }

    @Provide
    Arbitrary<String> unknownVerbs() {
        return Arbitraries.oneOf(
                        Arbitraries.of(
                                "access",
                                "ready",
                                "Ready",
                                "FAIL",
                                "STAT",
                                "ENDED",
                                "HELLO",
                                "",
                                "READY\t",
                                "STATS\u00a0"),
                        Arbitraries.strings().all().ofMaxLength(12).filter(s -> !s.contains(" ")))
                .filter(s -> !java.util.List.of("ACCESS", "READY", "FAILED", "STATS", "ENDING")
                        .contains(s));
    }

    @Provide
    Arbitrary<String> printable() {
        return Arbitraries.strings().all().ofMaxLength(60);
    }

    @Provide
    Arbitrary<String> badNumbers() {
        return Arbitraries.oneOf(
                Arbitraries.of("-1", "+1", "0x1", "1.0", "1e3", "\u0661", "9223372036854775808x", "FINAL", "Final"),
                Arbitraries.strings().withChars("-+.xe\t").ofMinLength(1).ofMaxLength(6));
    }

    @Provide
    Arbitrary<String> hostile() {
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(80);
        Arbitrary<String> verb = Arbitraries.of("ACCESS", "READY", "FAILED", "STATS", "ENDING");
        return Arbitraries.oneOf(
                any,
                Combinators.combine(verb, any).as((v, rest) -> v + " " + rest),
                Combinators.combine(
                                verb,
                                Arbitraries.strings()
                                        .withChars("0123456789 -:/{}[]\"final,")
                                        .ofMaxLength(40))
                        .as((v, rest) -> v + " " + rest),
                lines().map(WorkerLines::encode).map(text -> text.substring(0, text.length() / 2)));
    }
}
