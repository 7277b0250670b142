// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.io.IOException;

/**
 * The floor of {@link FootprintBench}: a JVM that does nothing but say {@code READY} on stdout and
 * wait for EOF on stdin, started alone on a class path of this one class, with the workers' JVM
 * options, so that its start and memory are what any worker pays before our code runs.
 */
public final class FootprintFloor {
    private FootprintFloor() {}

    public static void main(String[] args) throws IOException {
        System.out.println("READY");
        System.out.flush();
        while (System.in.read() >= 0) {
            // only EOF matters
        }
    }
}
