// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the dynamic loader's reason for refusing a plugin file into the rest of a one-line message
 * that follows "{@code FILE: }": an undefined symbol becomes what to link, anything else stays the
 * loader's words after "not a loadable shared object: ".
 *
 * <p>Plugins are opened {@code RTLD_NOW}, so a function that no loaded library defines is found at
 * load, where glibc says "{@code undefined symbol: NAME}" (prefixed with the library's path when
 * the symbol is missing from a library the plugin needs rather than from the plugin). Stateless.
 */
final class LoaderReason {
    private static final Pattern UNDEFINED = Pattern.compile("^(?:(.*): )?undefined symbol: (\\S+)$");
    private static final Pattern UCX_SYMBOL = Pattern.compile("^(ucp|ucs|uct|ucm)_.*");

    private LoaderReason() {}

    /**
     * The loader's {@code reason} (dlerror's text, less the plugin's own path) as the rest of a
     * one-line message about the plugin.
     */
    static String explain(String reason) {
        Matcher undefined = UNDEFINED.matcher(reason.strip());
        if (!undefined.matches()) {
            return "not a loadable shared object: " + reason;
        }
        String library = undefined.group(1);
        String symbol = undefined.group(2);
        if (library != null && !library.isEmpty()) {
            return "the library " + library + ", which it needs, has the undefined symbol " + symbol;
        }
        if (UCX_SYMBOL.matcher(symbol).matches()) {
            return "undefined symbol " + symbol + ": the plugin calls UCX but was not linked with it;"
                    + " add $(pkg-config --libs ucx) to its link line";
        }
        return "undefined symbol " + symbol + ": link the plugin with the library that defines it"
                + " (-lNAME on its link line), or define it";
    }
}
