// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.service.os.ProcessPrivacy;

/**
 * A JVM started from the JDK's own (readable) launcher, as a worker is where the kernel leaves it
 * dumpable: it seals itself ({@link ProcessPrivacy#seal}), prints {@code SEALED <whether it was
 * undumpable from its start>} or {@code FAILED <reason>}, and waits until its stdin ends.
 */
public final class SelfSealingMain {
    private SelfSealingMain() {}

    public static void main(String[] args) throws Exception {
        try {
            System.out.println("SEALED " + ProcessPrivacy.seal());
        } catch (Exception e) {
            System.out.println("FAILED " + e.getMessage());
        }
        System.out.flush();
        while (System.in.read() >= 0) {
            // hold still until the test is done with us
        }
    }
}
