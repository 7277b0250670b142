// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

/** Is the Java runtime version 17 or later? Stateless. */
public final class JavaVersionCheck implements Check {
    static final String NAME = "java";
    static final int MINIMUM = 17;

    private final Runtime.Version version;

    public JavaVersionCheck(Runtime.Version version) {
        this.version = version;
    }

    @Override
    public CheckResult run() {
        if (version.feature() < MINIMUM) {
            return CheckResult.failed(
                    NAME,
                    "Java " + version + " is older than " + MINIMUM,
                    "install Java " + MINIMUM + " or later and put it first on PATH (or set JAVA_HOME)");
        }
        return CheckResult.passed(NAME, "Java " + version);
    }
}
