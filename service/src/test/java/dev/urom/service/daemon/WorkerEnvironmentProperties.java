// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.service.logging.LogText;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Properties of the worker environment's rules over generated names, patterns and items. */
class WorkerEnvironmentProperties {
    /** The never-passable families (docs/security.md), as prefixes and suffixes. */
    private static final List<String> NEVER_PREFIXES = List.of(
            "LD_", "LC_", "LANG", "GCONV", "GLIBC_", "MALLOC_", "XDG_", "JAVA_", "JDK_", "_JAVA_", "JNA_", "LOG4J",
            "UROM_");

    private static final List<String> NEVER_SUFFIXES =
            List.of("_PATH", "_DIR", "_FILE", "_LIBRARIES", "_PRELOAD", "_COMMAND", "_MODULE");
    private static final List<String> NEVER_NAMES =
            List.of("GCONV_PATH", "LOCPATH", "GLIBC_TUNABLES", "TMPDIR", "CLASSPATH", "PATH", "HOME");

    @Property
    void caseNeverChangesWhetherANameMayPass(
            @ForAll("names") String name, @ForAll("patterns") List<String> patterns, @ForAll long caseBits) {
        WorkerEnvironment environment = new WorkerEnvironment(patterns);
        String variant = mixCase(name, caseBits);

        assertThat(environment.passable(variant)).isEqualTo(environment.passable(name));
        assertThat(WorkerEnvironment.neverPassable(variant)).isEqualTo(WorkerEnvironment.neverPassable(name));
    }

    @Property
    void aNeverPassableNamePassesUnderNoPatternsAtAll(
            @ForAll("neverPassableNames") String name,
            @ForAll("patterns") List<String> patterns,
            @ForAll long caseBits) {
        String variant = mixCase(name, caseBits);
        List<String> withTheNameItself = new ArrayList<>(patterns);
        withTheNameItself.add(variant);
        withTheNameItself.add("*");

        assertThat(WorkerEnvironment.neverPassable(variant)).isTrue();
        assertThat(new WorkerEnvironment(withTheNameItself).passable(variant)).isFalse();
        assertThat(new WorkerEnvironment(withTheNameItself).check(List.of(variant + "=1")))
                .hasValueSatisfying(r -> assertThat(r.message()).startsWith("env " + variant + " is never passed"));
    }

    @Property
    void aBuiltEnvironmentHoldsTheFixedValuesAndPassableNamesOnly(
            @ForAll("patterns") List<String> patterns,
            @ForAll("daemonEnvironments") Map<String, String> daemon,
            @ForAll("passableItems") List<String> items) {
        WorkerEnvironment environment = new WorkerEnvironment(patterns);
        List<String> hostItems = items.stream()
                .filter(item -> environment.passable(item.substring(0, item.indexOf('='))))
                .toList();
        Map<String, String> fixed = Map.of("HOME", "/w", "TMPDIR", "/w");

        Map<String, String> built = environment.build(fixed, daemon, hostItems);

        Set<String> fixedNames = new HashSet<>(List.of(
                "PATH",
                "LANG",
                "HOME",
                "TMPDIR",
                WorkerEnvironment.UCX_ERROR_SIGNALS,
                UcxTransports.TLS,
                UcxTransports.POSIX_USE_PROC_LINK));
        assertThat(built)
                .containsEntry("PATH", WorkerEnvironment.FIXED_PATH)
                .containsEntry("LANG", WorkerEnvironment.FIXED_LANG)
                .containsEntry(WorkerEnvironment.UCX_ERROR_SIGNALS, "")
                .containsEntry("HOME", "/w")
                .containsEntry("TMPDIR", "/w")
                .containsEntry(UcxTransports.POSIX_USE_PROC_LINK, "n");
        String tls = built.get(UcxTransports.TLS);
        assertThat(UcxTransports.withoutCma(tls))
                .as("UCX_TLS %s has nothing of cma left to take out", tls)
                .isEqualTo(tls);
        built.keySet().stream().filter(name -> !fixedNames.contains(name)).forEach(name -> {
            assertThat(environment.passable(name)).as(name).isTrue();
            assertThat(daemon.containsKey(name) || hostItems.stream().anyMatch(item -> item.startsWith(name + "=")))
                    .as(name)
                    .isTrue();
        });
        for (String item : hostItems) {
            String name = item.substring(0, item.indexOf('='));
            if (fixedNames.contains(name)) {
                continue;
            }
            assertThat(built).containsEntry(name, item.substring(item.indexOf('=') + 1));
        }
    }

    @Property(tries = 300)
    void everyRefusalIsOneShortLineWhateverTheItem(@ForAll("anyItems") String item) {
        Optional<Refusal> refusal = new WorkerEnvironment(List.of("UCX_*")).check(List.of(item));

        refusal.ifPresent(r -> assertThat(r.message())
                .doesNotContain("\n")
                .doesNotContain("\r")
                .doesNotContain("\u0000")
                .hasSizeLessThanOrEqualTo(3 * LogText.MAX_CHARS + 200));
    }

    private static String mixCase(String name, long bits) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            out.append((bits >>> (i % 64) & 1) == 0 ? Character.toLowerCase(c) : Character.toUpperCase(c));
        }
        return out.toString();
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.oneOf(
                plainNames(),
                neverPassableNames(),
                plainNames().map(n -> "UCX_" + n),
                plainNames().map(n -> "OMP_" + n));
    }

    private static Arbitrary<String> plainNames() {
        return Arbitraries.strings()
                .withChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
                .ofMinLength(1)
                .ofMaxLength(16)
                .map(s -> Character.isDigit(s.charAt(0)) ? "N" + s : s);
    }

    @Provide
    Arbitrary<String> neverPassableNames() {
        Arbitrary<String> tail = Arbitraries.strings()
                .withChars("ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789")
                .ofMaxLength(12);
        return Arbitraries.oneOf(
                Arbitraries.of(NEVER_NAMES),
                Combinators.combine(Arbitraries.of(NEVER_PREFIXES), tail).as((prefix, rest) -> prefix + rest),
                Combinators.combine(plainNames(), Arbitraries.of(NEVER_SUFFIXES))
                        .as((head, suffix) -> head + suffix),
                Combinators.combine(Arbitraries.of("UCX_", "UCC_", "OMP_"), Arbitraries.of(NEVER_SUFFIXES))
                        .as((p, s) -> p + "X" + s));
    }

    @Provide
    Arbitrary<List<String>> patterns() {
        Arbitrary<String> pattern = Arbitraries.oneOf(
                Arbitraries.of("*", "UCX_*", "UCC_*", "OMP_*", "*_THREADS", "A*B"),
                plainNames(),
                plainNames().map(n -> n + "*"),
                plainNames().map(n -> "*" + n));
        return pattern.list().ofMaxSize(4);
    }

    @Provide
    Arbitrary<Map<String, String>> daemonEnvironments() {
        Arbitrary<String> key = Arbitraries.oneOf(
                names(), Arbitraries.strings().ofMinLength(1).ofMaxLength(8).filter(s -> s.indexOf('=') < 0));
        return Arbitraries.maps(key, Arbitraries.strings().alpha().ofMaxLength(8))
                .ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<String>> passableItems() {
        return Combinators.combine(
                        names(), Arbitraries.strings().alpha().numeric().ofMaxLength(8))
                .as((n, v) -> n + "=" + v)
                .list()
                .ofMaxSize(6)
                .uniqueElements(item -> item.substring(0, item.indexOf('=')).toUpperCase(Locale.ROOT));
    }

    @Provide
    Arbitrary<String> anyItems() {
        Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(400);
        Arbitrary<String> huge = Arbitraries.strings().all().ofMinLength(5_000).ofMaxLength(70_000);
        return Arbitraries.oneOf(
                any,
                huge,
                any.map(s -> "UCX_A=" + s),
                any.map(s -> s + "=" + s),
                huge.map(s -> s.replace("=", "") + "=1"));
    }
}
