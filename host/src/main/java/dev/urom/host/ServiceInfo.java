// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import java.util.List;

/**
 * What the daemon lets any of its hosts' workers have, as it answers SERVICE_INFO: the same for
 * every principal. Immutable.
 *
 * @param cpus the CPUs a worker may be pinned to ({@link WorkerBuilder#cpus}), strictly ascending:
 *     those the daemon itself may run on; a worker start naming another is refused (INVALID_VALUE)
 * @param maxWorkers the most workers one principal may have at once, starting or running (a start
 *     beyond it is refused with FULL); 0 when the daemon sets no bound
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public record ServiceInfo(List<Integer> cpus, int maxWorkers) {
    public ServiceInfo {
        cpus = List.copyOf(requireNonNull(cpus, "cpus is null"));
        if (maxWorkers < 0) {
            throw new IllegalArgumentException("max workers " + maxWorkers + " is negative");
        }
    }
}
