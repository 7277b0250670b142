// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The {@link WorkerProcess}es one test started, destroyed when it ends, whatever its outcome: a
 * test class registers one with {@code @RegisterExtension} and {@link #add}s each worker it starts.
 * For the test's own thread.
 */
final class WorkerProcesses implements AfterEachCallback {
    private final List<WorkerProcess> started = new ArrayList<>();

    /** Takes {@code worker} to destroy after the test; returns it. */
    WorkerProcess add(WorkerProcess worker) {
        started.add(worker);
        return worker;
    }

    @Override
    public void afterEach(ExtensionContext context) throws InterruptedException {
        for (WorkerProcess worker : started) {
            worker.destroy();
        }
        started.clear();
    }
}
