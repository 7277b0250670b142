// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.sandbox;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestWorker;
import java.time.Duration;

/**
 * The sandbox plugins in the test kit: the built {@code worker_sandbox.so}, the packaged {@code
 * worker_sandbox_java.jar}, or a {@link SandboxPlugin} from the test class path, each with a
 * generous time limit; and the sends and waits of sandbox commands. A sandbox command answers with its
 * own {@code context}, so it is sent with that context as its {@code uromContext} and awaited by it.
 * Stateless; the workers passed in are driven as the kit says (from the thread that opened them).
 */
final class SandboxWorkers {
    /** Generous: the build machine is shared and noisy. */
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private SandboxWorkers() {}

    static PluginTestKit.Builder nativePlugin() {
        return PluginTestKit.plugin(NativeFixtures.builtFile("urom.sandbox.so")).timeout(TIMEOUT);
    }

    /** The plugin jar, loaded in a class loader of its own as a worker loads it. */
    static PluginTestKit.Builder javaJar() {
        return PluginTestKit.plugin(NativeFixtures.builtFile("urom.sandbox.jar"))
                .timeout(TIMEOUT);
    }

    /** A {@link SandboxPlugin} of the test's own class loader, so that a test may cast {@link TestWorker#plugin()} to it. */
    static PluginTestKit.Builder javaPlugin() {
        return PluginTestKit.plugin(SandboxPlugin::new).timeout(TIMEOUT);
    }

    static WorkerCommand send(TestWorker worker, SandboxCommand command) {
        return worker.send(command.context(), command.encode());
    }

    static WorkerNotification call(TestWorker worker, SandboxCommand command) {
        return worker.awaitAnswer(send(worker, command)).notification();
    }

    /** Waits for {@code worker}'s answer to the command sent with {@code uromContext}. */
    static WorkerNotification await(TestWorker worker, long uromContext) {
        return worker.awaitNotification(n -> n.uromContext() == uromContext, "answer to context " + uromContext)
                .notification();
    }
}
