// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import dev.urom.host.UromService;
import dev.urom.host.Worker;

/**
 * A host application as its own process, for the host-disconnect test: connects to the daemon at
 * {@code args[0]}, starts worker {@code args[1]} with plugin mask {@code args[2]}, prints {@code
 * RUNNING <id>} and then waits until its standard input ends — or until it is killed.
 */
public final class HostProcess {
    private HostProcess() {}

    public static void main(String[] args) throws Exception {
        UromService service = UromService.connect(args[0]);
        Worker worker = service.newWorker()
                .id(Long.parseLong(args[1]))
                .plugins(Long.parseLong(args[2]))
                .build();
        worker.start().get();
        System.out.println("RUNNING " + worker.id());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the end of standard input
        }
    }
}
