// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of one check: its name, its {@link Grade}, what was found, and (unless it is OK)
 * what to do about it. Immutable.
 *
 * @param name what was checked, e.g. {@code hugepages}
 * @param grade OK, WARN (the daemon serves here, but something is worth knowing) or FAIL (the
 *     daemon cannot serve here)
 * @param detail what was found, one line
 * @param advice what to do; null when the check passed
 */
public record CheckResult(String name, Grade grade, String detail, String advice) {
    /** How a check came out, from the daemon's point of view on this machine. */
    public enum Grade {
        /** Nothing to do. */
        OK("ok"),
        /** The daemon serves here; what was found matters only elsewhere (a device deployment) or later. */
        WARN("WARN"),
        /** The daemon cannot start or cannot serve here until this is fixed. */
        FAIL("FAIL");

        private final String label;

        Grade(String label) {
            this.label = label;
        }

        /** {@code ok}, {@code WARN} or {@code FAIL}: how the text report prints it. */
        public String label() {
            return label;
        }
    }

    public CheckResult {
        requireNonNull(name, "name is null");
        requireNonNull(grade, "grade is null");
        requireNonNull(detail, "detail is null");
        if (grade != Grade.OK) {
            requireNonNull(advice, "a warning or failure needs advice");
        }
    }

    /** Whether the daemon can serve as far as this check knows: OK or WARN. */
    public boolean ok() {
        return grade != Grade.FAIL;
    }

    public static CheckResult passed(String name, String detail) {
        return new CheckResult(name, Grade.OK, detail, null);
    }

    public static CheckResult warned(String name, String detail, String advice) {
        return new CheckResult(name, Grade.WARN, detail, advice);
    }

    public static CheckResult failed(String name, String detail, String advice) {
        return new CheckResult(name, Grade.FAIL, detail, advice);
    }
}
