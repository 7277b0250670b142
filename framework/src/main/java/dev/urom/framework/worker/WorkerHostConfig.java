package dev.urom.framework.worker;

import static java.util.Objects.requireNonNull;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.WorkerCommand;

/**
 * Settings of a {@link WorkerHost}. Immutable; safe to share between threads.
 *
 * @param maxMessageSize the largest command accepted, header included ({@link
 *     WorkerCommand#sizeWithHeader()}); a larger one is answered with {@code TOO_BIG}
 * @param domain the peer look-ups handed to every plugin in its {@code WorkerContext}
 */
public record WorkerHostConfig(int maxMessageSize, DomainLookups domain) {
    /** The service's default maximum message size, header included. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 4096;

    public WorkerHostConfig {
        requireNonNull(domain, "domain is null");
        if (maxMessageSize < WorkerCommand.HEADER_BYTES) {
            throw new IllegalArgumentException("max message size " + maxMessageSize
                    + " bytes is smaller than a command header (" + WorkerCommand.HEADER_BYTES + " bytes)");
        }
    }

    /** {@value #DEFAULT_MAX_MESSAGE_SIZE} bytes, no domain. */
    public static WorkerHostConfig defaults() {
        return new WorkerHostConfig(DEFAULT_MAX_MESSAGE_SIZE, DomainLookups.none());
    }

    public WorkerHostConfig withMaxMessageSize(int bytes) {
        return new WorkerHostConfig(bytes, domain);
    }

    public WorkerHostConfig withDomain(DomainLookups lookups) {
        return new WorkerHostConfig(maxMessageSize, lookups);
    }
}
