// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/** {@code --worker-uid-range FIRST-LAST}: what it reads, and the one line it gives for anything else. */
class UidRangeProperties {
    @Property
    void aRangeReadsBackFromItsText(
            @ForAll @LongRange(min = 1, max = UidRange.MAX_ID) long first,
            @ForAll @LongRange(min = 0, max = 1L << 20) long span) {
        long last = Math.min(UidRange.MAX_ID, first + span);
        UidRange range = UidRange.parse(first + "-" + last);

        assertThat(range).isEqualTo(new UidRange(first, last));
        assertThat(UidRange.parse(range.toString())).isEqualTo(range);
        assertThat(range.size()).isEqualTo(last - first + 1);
        assertThat(range.contains((int) first)).isTrue();
        assertThat(range.contains((int) last)).isTrue();
    }

    @Property
    void anythingElseIsOneLineNamingTheOption(@ForAll("notRanges") String text) {
        assertThatThrownBy(() -> UidRange.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage())
                        .startsWith("--worker-uid-range ")
                        .doesNotContain("\n"));
    }

    @Provide
    Arbitrary<String> notRanges() {
        return Arbitraries.oneOf(
                Arbitraries.of(
                        "",
                        "-",
                        "5",
                        "5-",
                        "-5",
                        "0-10",
                        "10-5",
                        "1-4294967295",
                        "1-99999999999",
                        "a-b",
                        " 1-2",
                        "1-2 ",
                        "1--2",
                        "+1-2",
                        "1-2-3",
                        "0x70000000-0x70000001",
                        "1-2\n",
                        "\n",
                        "1\u0000-2",
                        "١-٢"),
                Arbitraries.strings().ofMaxLength(24).filter(s -> !s.matches("[0-9]{1,10}-[0-9]{1,10}")),
                Arbitraries.longs().between(2, UidRange.MAX_ID).map(last -> last + "-" + (last - 1)));
    }

    @Example
    void theDefaultIsTheBlockAt0x70000000() {
        assertThat(UidRange.DEFAULT).hasToString("1879048192-1879113727");
        assertThat(UidRange.DEFAULT.size()).isEqualTo(65536);
        assertThat(UidRange.DEFAULT.contains(0x70000000)).isTrue();
        assertThat(UidRange.DEFAULT.contains(0x6FFFFFFF)).isFalse();
        assertThat(UidRange.DEFAULT.contains(0x70010000)).isFalse();
        assertThat(UidRange.DEFAULT.contains(-1)).isFalse();
    }

    @Example
    void aRangeOverTwoToTheThirtyOneHoldsItsUidsAsUnsigned() {
        UidRange high = UidRange.parse("4294967290-4294967294");

        assertThat(high.contains(-2)).isTrue();
        assertThat(high.contains(-6)).isTrue();
        assertThat(high.contains(-1)).as("(uid_t) -1").isFalse();
    }
}
