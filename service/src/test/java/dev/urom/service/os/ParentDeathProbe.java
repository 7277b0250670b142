// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

/** Child side of {@link ParentDeathTest}: arms {@link ParentDeath}, prints {@code ARMED <pid>}, then idles. */
public final class ParentDeathProbe {
    private ParentDeathProbe() {}

    public static void main(String[] args) throws Exception {
        ParentDeath.arm(ParentDeath.parentPid());
        System.out.println("ARMED " + ProcessHandle.current().pid());
        System.out.flush();
        while (true) {
            Thread.sleep(60_000);
        }
    }
}
