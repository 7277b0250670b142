// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Is a hugetlbfs mounted? Looks for a {@code hugetlbfs} line in {@code proc/mounts} under a system
 * root ({@code /} on a real machine). None is a WARN, never a FAIL: only a device deployment needs
 * one. Stateless.
 */
public final class HugetlbfsCheck implements Check {
    static final String NAME = "hugetlbfs";
    static final String ADVICE =
            "mount one: sudo mkdir -p /mnt/huge && sudo mount -t hugetlbfs -o pagesize=2M nodev /mnt/huge";

    /** Why a missing hugetlbfs is only a warning. */
    static final String ONLY_FOR_DEVICES = "; the daemon serves without one, only a device deployment needs it";

    private final Path mounts;

    public HugetlbfsCheck(Path sysRoot) {
        this.mounts = sysRoot.resolve("proc/mounts");
    }

    @Override
    public CheckResult run() {
        List<String> lines;
        try {
            lines = Files.readAllLines(mounts);
        } catch (IOException e) {
            return CheckResult.warned(NAME, "cannot read " + mounts + ": " + e + ONLY_FOR_DEVICES, ADVICE);
        }
        List<String> mountPoints = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.strip().split("\\s+");
            if (fields.length >= 3 && fields[2].equals("hugetlbfs")) {
                mountPoints.add(fields[1]);
            }
        }
        if (mountPoints.isEmpty()) {
            return CheckResult.warned(
                    NAME, "no hugetlbfs is mounted (" + mounts + " has no hugetlbfs line)" + ONLY_FOR_DEVICES, ADVICE);
        }
        return CheckResult.passed(NAME, "mounted at " + String.join(", ", mountPoints));
    }
}
