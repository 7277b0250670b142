// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.os;

import java.util.BitSet;
import java.util.concurrent.CountDownLatch;

/**
 * Child-JVM side of {@link AffinityTest}: pins the process to the CPU given as argument, starts
 * one more thread, prints {@code PINNED} (or {@code ERROR <status> <message>}) and waits for stdin
 * to close.
 */
public final class AffinityProbe {
    private AffinityProbe() {}

    public static void main(String[] args) throws Exception {
        BitSet cpus = new BitSet();
        for (String cpu : args[0].split(",")) {
            cpus.set(Integer.parseInt(cpu));
        }
        try {
            Affinity.pinProcess(cpus);
        } catch (dev.urom.spi.UromException e) {
            System.out.println("ERROR " + e.status() + " " + e.getMessage());
            System.out.flush();
            return;
        }
        CountDownLatch started = new CountDownLatch(1);
        Thread later = new Thread(
                () -> {
                    started.countDown();
                    try {
                        System.in.read();
                    } catch (java.io.IOException ignored) {
                        // the test closed the pipe
                    }
                },
                "started-after-pinning");
        later.start();
        started.await();
        System.out.println("PINNED " + Affinity.format(Affinity.allowedCpus()));
        System.out.flush();
        later.join();
    }
}
