// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.host.UromService;
import dev.urom.host.Worker;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A host in a process of its own, for the tests that need a host of another Unix user ({@link
 * OsChildHost}): {@code ADDRESS PLUGIN-ID}. It connects without a key (so the daemon knows it by
 * its uid), starts a worker with that plugin, prints {@code STARTED <worker id>}, and
 * keeps the worker until its stdin ends; on failure it prints {@code FAILED <reason>} and exits 1.
 */
public final class OsChildHostMain {
    private OsChildHostMain() {}

    public static void main(String[] args) throws Exception {
        try (UromService service = UromService.connect(args[0], Optional.empty())) {
            try (Worker worker =
                    service.newWorker().plugins(Long.parseUnsignedLong(args[1])).build()) {
                worker.start().get(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
                System.out.println("STARTED " + Long.toUnsignedString(worker.id()));
                System.out.flush();
                while (System.in.read() >= 0) {
                    // keep the worker until the test closes our stdin
                }
            }
        } catch (Exception e) {
            System.out.println("FAILED " + e);
            System.out.flush();
            System.exit(1);
        }
    }
}
