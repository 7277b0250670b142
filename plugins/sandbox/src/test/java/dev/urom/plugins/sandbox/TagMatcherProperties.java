package dev.urom.plugins.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** {@link TagMatcher} against a reference model that scans everything in order. */
class TagMatcherProperties {
    /** One step: a message arriving ({@code send}) or a receive being posted. */
    record Step(boolean send, long tag, long mask) {}

    @Property
    void everyInterleavingMatchesLikeTheReferenceModel(@ForAll("steps") List<Step> steps) {
        TagMatcher<Integer, Integer> matcher = new TagMatcher<>();
        Map<Integer, Integer> actual = new LinkedHashMap<>();
        Map<Integer, Integer> expected = new LinkedHashMap<>();
        List<long[]> modelReceives = new ArrayList<>(); // {id, tag, mask}
        List<long[]> modelMessages = new ArrayList<>(); // {id, tag}

        for (int id = 0; id < steps.size(); id++) {
            Step step = steps.get(id);
            if (step.send()) {
                Integer receive = matcher.arrive(step.tag(), id);
                if (receive != null) {
                    actual.put(id, receive);
                }
                long[] match = null;
                for (long[] r : modelReceives) {
                    if ((step.tag() & r[2]) == (r[1] & r[2])) {
                        match = r;
                        break;
                    }
                }
                if (match == null) {
                    modelMessages.add(new long[] {id, step.tag()});
                } else {
                    modelReceives.remove(match);
                    expected.put(id, (int) match[0]);
                }
            } else {
                Integer message = matcher.post(step.tag(), step.mask(), id);
                if (message != null) {
                    actual.put(message, id);
                }
                long[] match = null;
                for (long[] m : modelMessages) {
                    if ((m[1] & step.mask()) == (step.tag() & step.mask())) {
                        match = m;
                        break;
                    }
                }
                if (match == null) {
                    modelReceives.add(new long[] {id, step.tag(), step.mask()});
                } else {
                    modelMessages.remove(match);
                    expected.put((int) match[0], id);
                }
            }
        }

        assertThat(actual).as("message -> receive").isEqualTo(expected);
        assertThat(matcher.postedCount()).isEqualTo(modelReceives.size());
        assertThat(matcher.unexpectedCount()).isEqualTo(modelMessages.size());
        assertThat(matcher.drainReceives()).containsExactlyElementsOf(modelReceives.stream().map(r -> (int) r[0]).toList());
        assertThat(matcher.postedCount()).isZero();
    }

    @Property
    void messagesWithOneTagReachReceivesInPostingOrder(@ForAll("smallCounts") int count, @ForAll long tag) {
        TagMatcher<Integer, Integer> matcher = new TagMatcher<>();
        for (int i = 0; i < count; i++) {
            assertThat(matcher.post(tag, -1L, i)).isNull();
        }
        for (int i = 0; i < count; i++) {
            assertThat(matcher.arrive(tag, 100 + i)).isEqualTo(i);
        }
    }

    @Property
    void aMaskIgnoresTheBitsItClears(@ForAll long tag, @ForAll long mask, @ForAll long noise) {
        long messageTag = (tag & mask) | (noise & ~mask);
        assertThat(TagMatcher.matches(messageTag, tag, mask)).isTrue();
        assertThat(TagMatcher.matches(tag, tag, mask)).isTrue();
        if (mask != 0) {
            long flipped = tag ^ Long.lowestOneBit(mask);
            assertThat(TagMatcher.matches(flipped, tag, mask)).isFalse();
        }
        assertThat(TagMatcher.matches(noise, tag, 0)).as("mask 0 matches everything").isTrue();
    }

    @Provide
    Arbitrary<Integer> smallCounts() {
        return Arbitraries.integers().between(0, 20);
    }

    @Provide
    Arbitrary<List<Step>> steps() {
        // Few distinct tags and masks, so that matches, misses and partial masks all happen often.
        Arbitrary<Long> tags = Arbitraries.of(0x1234L, 0x5678L, 0x11234L, 0x0L, -1L);
        Arbitrary<Long> masks = Arbitraries.of(-1L, 0xffffL, 0xffL, 0L);
        Arbitrary<Step> step = Combinators.combine(Arbitraries.of(true, false), tags, masks).as(Step::new);
        return step.list().ofMaxSize(60);
    }
}
