// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

/** A stand-in worker for the class-data tests: prints its one line on stdout and exits 0. */
public final class ClassDataProbe {
    private ClassDataProbe() {}

    public static void main(String[] args) {
        System.out.println("READY probe");
    }
}
