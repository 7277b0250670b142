// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.Api;
import dev.urom.wire.Protocol;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Collects the settings of one worker. Not thread-safe. Each setter checks its argument and
 * throws {@link IllegalArgumentException} naming it.
 */
@Api(status = Api.Status.STABLE, since = "0.1")
public final class WorkerBuilder {
    /** Default number of commands that may be outstanding at once. */
    public static final int DEFAULT_MAX_INFLIGHT = 64;

    private final UromService service;
    private long id = Protocol.ANY_WORKER;
    private long pluginMask;
    private long gid;
    private final List<String> env = new ArrayList<>();
    private final List<Integer> cpus = new ArrayList<>();
    private int maxInflight = DEFAULT_MAX_INFLIGHT;

    WorkerBuilder(UromService service) {
        this.service = service;
    }

    /** A chosen worker id; asking for the id of a running worker joins it. */
    public WorkerBuilder id(long id) {
        this.id = id;
        return this;
    }

    /** Lets the daemon choose the id (the default). */
    public WorkerBuilder anyId() {
        this.id = Protocol.ANY_WORKER;
        return this;
    }

    public WorkerBuilder plugins(long mask) {
        this.pluginMask = mask;
        return this;
    }

    public WorkerBuilder plugins(Collection<Plugin> plugins) {
        long mask = 0;
        for (Plugin p : plugins) {
            mask |= p.id();
        }
        this.pluginMask = mask;
        return this;
    }

    public WorkerBuilder gid(long gid) {
        this.gid = gid;
        return this;
    }

    /** Environment entries {@code NAME=value} applied to the worker process when it is spawned. */
    public WorkerBuilder env(String... entries) {
        for (String e : entries) {
            requireNonNull(e, "env entry is null");
            int eq = e.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("env entry '" + e + "' is not NAME=value");
            }
            env.add(e);
        }
        return this;
    }

    /** CPUs the worker process is bound to. */
    public WorkerBuilder cpus(int... cpus) {
        for (int cpu : cpus) {
            if (cpu < 0) {
                throw new IllegalArgumentException("cpu " + cpu + " is negative");
            }
            this.cpus.add(cpu);
        }
        return this;
    }

    /** Most commands outstanding at once; past it, submissions complete with AGAIN. A power of two. */
    public WorkerBuilder maxInflight(int maxInflight) {
        if (maxInflight <= 0 || Integer.bitCount(maxInflight) != 1) {
            throw new IllegalArgumentException("max in-flight " + maxInflight + " is not a power of two");
        }
        this.maxInflight = maxInflight;
        return this;
    }

    public Worker build() {
        return new Worker(service, id, pluginMask, gid, List.copyOf(env), List.copyOf(cpus), maxInflight);
    }
}
