// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import dev.urom.spi.UromStatus;
import dev.urom.wire.Message.WorkerStartRequest;
import java.util.Optional;

/**
 * Checks a WORKER_START before anything is started, in this order: the plugin mask (NOT_FOUND),
 * the env items ({@link WorkerEnvironment#check}: their form and size, INVALID_VALUE, then their
 * names against the allow-list, NOT_PERMITTED), the cpus (INVALID_VALUE). Stateless apart from its
 * inputs; thread-safe.
 */
final class StartRequestCheck {
    private final CpuSet allowedCpus;
    private final WorkerEnvironment environment;

    StartRequestCheck(CpuSet allowedCpus, WorkerEnvironment environment) {
        this.allowedCpus = allowedCpus;
        this.environment = environment;
    }

    /**
     * The first reason to refuse {@code request}, or empty.
     *
     * @param pluginMask the ids of the plugins the daemon currently accepts
     */
    Optional<Refusal> check(WorkerStartRequest request, long pluginMask) {
        long mask = request.pluginMask();
        if (mask == 0) {
            return refuse(UromStatus.NOT_FOUND, "plugin mask is 0: a worker needs at least one plugin");
        }
        long unknown = mask & ~pluginMask;
        if (unknown != 0) {
            return refuse(
                    UromStatus.NOT_FOUND,
                    "plugin mask " + hex(mask) + " names " + (Long.bitCount(unknown) == 1 ? "id " : "ids ")
                            + hex(unknown) + ", which this daemon does not have (its plugins: " + hex(pluginMask)
                            + ")");
        }
        Optional<Refusal> env = environment.check(request.env());
        if (env.isPresent()) {
            return env;
        }
        for (int cpu : request.cpus()) {
            if (!allowedCpus.contains(cpu)) {
                return refuse(
                        UromStatus.INVALID_VALUE, "cpu " + cpu + " is not in the daemon's cpu set " + allowedCpus);
            }
        }
        return Optional.empty();
    }

    private static Optional<Refusal> refuse(UromStatus status, String message) {
        return Optional.of(new Refusal(status, message));
    }

    static String hex(long mask) {
        return "0x" + Long.toHexString(mask);
    }
}
