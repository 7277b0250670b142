// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

/**
 * One thing {@code urom doctor} verifies. {@link #run()} never throws: whatever goes wrong while
 * checking is reported as a failed {@link CheckResult}.
 */
public interface Check {
    CheckResult run();
}
