// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.doctor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Are 2 MiB hugepages allocated? Reads {@code sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages}
 * under a system root ({@code /} on a real machine). None is a WARN, never a FAIL: the daemon and
 * its workers serve without them; only a device deployment (UCX memory on a DPU) needs them.
 * Stateless.
 */
public final class HugepagesCheck implements Check {
    static final String NAME = "hugepages";
    /** How many the deployment guide has the host allocate. */
    static final long RECOMMENDED = 2048;

    static final String ADVICE =
            "allocate them: echo 2048 | sudo tee /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
                    + "; in Kubernetes, a pod that is not listed at all was refused admission for lack of hugepages (journalctl -u kubelet shows it)";
    /** Why a missing hugepage is only a warning. */
    static final String ONLY_FOR_DEVICES = "; the daemon serves without them, only a device deployment needs them";

    private final Path nrHugepages;

    public HugepagesCheck(Path sysRoot) {
        this.nrHugepages = sysRoot.resolve("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
    }

    @Override
    public CheckResult run() {
        String text;
        try {
            text = Files.readString(nrHugepages).strip();
        } catch (NoSuchFileException e) {
            return CheckResult.warned(
                    NAME,
                    nrHugepages + " does not exist: this kernel offers no 2 MiB hugepages" + ONLY_FOR_DEVICES,
                    ADVICE);
        } catch (IOException e) {
            return CheckResult.warned(NAME, "cannot read " + nrHugepages + ": " + e + ONLY_FOR_DEVICES, ADVICE);
        }
        long count;
        try {
            count = Long.parseLong(text);
        } catch (NumberFormatException e) {
            return CheckResult.warned(
                    NAME, nrHugepages + " holds '" + text + "', not a number" + ONLY_FOR_DEVICES, ADVICE);
        }
        if (count <= 0) {
            return CheckResult.warned(
                    NAME,
                    "no 2 MiB hugepages are allocated (" + nrHugepages + " is " + count + ")" + ONLY_FOR_DEVICES,
                    ADVICE);
        }
        String detail = count + " hugepages of 2 MiB allocated";
        return CheckResult.passed(
                NAME, count < RECOMMENDED ? detail + " (the deployment guide allocates " + RECOMMENDED + ")" : detail);
    }
}
