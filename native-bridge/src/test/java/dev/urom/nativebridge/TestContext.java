// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.WorkerContext;

/** A worker context for tests. */
record TestContext(long workerId, long pluginId, DomainLookups domain) implements WorkerContext {
    static TestContext withoutDomain() {
        return new TestContext(1, 0x4, DomainLookups.none());
    }
}
