// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of one check: its name, whether it passed, what was found, and (when it failed) what
 * to do about it. Immutable.
 *
 * @param name what was checked, e.g. {@code hugepages}
 * @param ok whether the check passed
 * @param detail what was found, one line
 * @param advice what to do; null when the check passed
 */
public record CheckResult(String name, boolean ok, String detail, String advice) {
    public CheckResult {
        requireNonNull(name, "name is null");
        requireNonNull(detail, "detail is null");
        if (!ok) {
            requireNonNull(advice, "a failed check needs advice");
        }
    }

    public static CheckResult passed(String name, String detail) {
        return new CheckResult(name, true, detail, null);
    }

    public static CheckResult failed(String name, String detail, String advice) {
        return new CheckResult(name, false, detail, advice);
    }
}
