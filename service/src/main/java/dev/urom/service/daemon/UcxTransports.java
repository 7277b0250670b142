// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The UCX settings every worker starts with because workers are undumpable (docs/security.md, "A
 * worker's memory is its own"): UCX's cross-memory transport {@code cma} cannot reach another
 * undumpable process of the same uid (UCX aborts the process when {@code process_vm_readv} is
 * refused), and its {@code posix} transport must share memory by name rather than through {@code
 * /proc/PID/fd} links. Stateless.
 */
final class UcxTransports {
    static final String TLS = "UCX_TLS";
    static final String POSIX_USE_PROC_LINK = "UCX_POSIX_USE_PROC_LINK";
    /** Every transport but {@code cma}. */
    static final String ALL_BUT_CMA = "^cma";

    private UcxTransports() {}

    /**
     * {@code tls} (a {@code UCX_TLS} value; null or empty: UCX's default, every transport) without
     * {@code cma}: an exclusion list gets {@code cma} added; an inclusion list loses {@code cma} and
     * has the aliases that include it ({@code sm}, {@code shm}: {@code posix,sysv}; {@code all})
     * replaced; a list left empty, or {@code all}, becomes {@value #ALL_BUT_CMA}.
     */
    static String withoutCma(String tls) {
        if (tls == null || tls.isBlank()) {
            return ALL_BUT_CMA;
        }
        if (tls.startsWith("^")) {
            for (String entry : tls.substring(1).split(",")) {
                if (name(entry).equals("cma")) {
                    return tls;
                }
            }
            return tls + ",cma";
        }
        List<String> kept = new ArrayList<>();
        for (String entry : tls.split(",")) {
            String suffix = entry.substring(name(entry).length());
            switch (name(entry)) {
                case "cma" -> {}
                case "all" -> {
                    return ALL_BUT_CMA;
                }
                case "sm", "shm" -> {
                    kept.add("posix" + suffix);
                    kept.add("sysv" + suffix);
                }
                default -> kept.add(entry);
            }
        }
        return kept.isEmpty() ? ALL_BUT_CMA : String.join(",", kept);
    }

    /** The transport name of a list entry ({@code rc:aux} names {@code rc}), in lower case. */
    private static String name(String entry) {
        int colon = entry.indexOf(':');
        return (colon < 0 ? entry : entry.substring(0, colon)).toLowerCase(Locale.ROOT);
    }
}
