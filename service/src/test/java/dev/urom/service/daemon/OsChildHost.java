// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccount;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A host ({@link OsChildHostMain}) in a child JVM run from an {@link OsTestbed}'s staged class path
 * as another Unix user, holding one worker until {@link #close()}. Not thread-safe.
 */
final class OsChildHost implements AutoCloseable {
    private final Process process;
    private final long workerId;

    private OsChildHost(Process process, long workerId) {
        this.process = process;
        this.workerId = workerId;
    }

    /** Starts a host as {@code account} (no supplementary group) that starts a worker with plugin {@code pluginId} at {@code address}. */
    static OsChildHost start(
            OsTestbed testbed, UnixAccount account, ServiceAddress address, long pluginId, Path stderr) {
        List<String> java = testbed.javaCommand(
                OsChildHostMain.class, List.of(), address.toString(), Long.toUnsignedString(pluginId));
        try {
            Process process = new ProcessBuilder(OsTestbed.as(account, List.of(), java))
                    .redirectError(stderr.toFile())
                    .start();
            String line = OsChildDaemon.firstLine(process, "the host of " + account.describe());
            if (line == null || !line.startsWith("STARTED ")) {
                process.destroyForcibly();
            }
            assertThat(line)
                    .as("the host of %s; its stderr is in %s", account.describe(), stderr)
                    .startsWith("STARTED ");
            return new OsChildHost(process, Long.parseUnsignedLong(line.substring("STARTED ".length())));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a host as " + account.describe() + ": " + e.getMessage(), e);
        }
    }

    /** The id of the worker it started. */
    long workerId() {
        return workerId;
    }

    @Override
    public void close() throws InterruptedException {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // the host is gone already
        }
        if (!process.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(OsChildDaemon.PATIENCE.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
