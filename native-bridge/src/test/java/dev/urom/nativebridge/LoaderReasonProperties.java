// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The loader's reasons, reworded: undefined symbols by where they are missing, everything else kept. */
class LoaderReasonProperties {
    @Example
    void aUcxSymbolMissingFromThePluginSaysToLinkUcx() {
        assertThat(LoaderReason.explain("undefined symbol: ucs_status_string"))
                .isEqualTo(
                        "undefined symbol ucs_status_string:"
                                + " the plugin calls UCX but was not linked with it; add $(pkg-config --libs ucx) to its link line");
    }

    @Example
    void aSymbolMissingFromALibraryNamesTheLibrary() {
        assertThat(LoaderReason.explain("/usr/lib/libx.so.1: undefined symbol: y_init"))
                .isEqualTo("the library /usr/lib/libx.so.1, which it needs, has the undefined symbol y_init");
    }

    @Example
    void otherReasonsStayTheLoadersWords() {
        assertThat(LoaderReason.explain("invalid ELF header"))
                .isEqualTo("not a loadable shared object: invalid ELF header");
        assertThat(LoaderReason.explain("libucp.so.0: cannot open shared object file: No such file or directory"))
                .isEqualTo(
                        "not a loadable shared object: libucp.so.0: cannot open shared object file: No such file or directory");
        assertThat(LoaderReason.explain("undefined symbol: two words"))
                .isEqualTo("not a loadable shared object: undefined symbol: two words");
    }

    @Property
    void anyUndefinedSymbolIsNamedOnceOnOneLine(@ForAll("symbols") String symbol) {
        String explained = LoaderReason.explain("undefined symbol: " + symbol);

        assertThat(explained)
                .startsWith("undefined symbol " + symbol + ": ")
                .doesNotContain("\n")
                .doesNotContain("not a loadable shared object");
        assertThat(explained.contains("pkg-config --libs ucx")).isEqualTo(symbol.matches("(ucp|ucs|uct|ucm)_.*"));
    }

    @Property
    void aReasonThatIsNotAnUndefinedSymbolIsKeptWhole(@ForAll String reason) {
        String explained = LoaderReason.explain(reason);

        if (!reason.contains("undefined symbol: ")) {
            assertThat(explained).isEqualTo("not a loadable shared object: " + reason);
        }
    }

    @Provide
    Arbitrary<String> symbols() {
        Arbitrary<String> prefix = Arbitraries.of("", "ucp_", "ucs_", "uct_", "ucm_", "doca_", "uc_", "ucpx");
        Arbitrary<String> rest = Arbitraries.strings()
                .withChars("abcdefghijklmnopqrstuvwxyz_0123456789@.")
                .ofMinLength(1)
                .ofMaxLength(40);
        return prefix.flatMap(p -> rest.map(r -> p + r));
    }
}
