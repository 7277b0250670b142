// SPDX-License-Identifier: Apache-2.0
package dev.urom.testkit;

import dev.urom.framework.worker.PluginSpec;
import dev.urom.framework.worker.WorkerHost;
import dev.urom.framework.worker.WorkerHostConfig;
import dev.urom.spi.Api;
import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Several {@link TestWorker}s of one job in this process, whose plugins find each other as the
 * workers of a domain do: the plugin of domain id N looks up the address that the plugin of the
 * worker with domain id N publishes ({@code addr}). Memory segments are not published: their
 * look-ups fail with NOT_SUPPORTED. A closed worker's address is NOT_FOUND.
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li><b>One thread.</b> The thread that opened the domain drives it and all its workers (a
 *       native plugin must always be called from the same thread); any other thread gets an
 *       {@link IllegalStateException}.
 *   <li><b>Progress.</b> A wait of any worker makes progress on every worker of the domain, so
 *       that a peer's answer to a message can come while the test waits for its own.
 *   <li><b>Ownership.</b> The domain owns its workers: {@link #close()} closes every one (each
 *       plugin once) and deletes the plugin copies it made. Idempotent.
 * </ul>
 */
@Api(status = Api.Status.EXPERIMENTAL, since = "0.1")
public final class TestDomain implements AutoCloseable {
    private final List<TestWorker> workers = new ArrayList<>();
    private final Thread owner = Thread.currentThread();
    private final Path copies;
    private boolean closed;

    private TestDomain(Path copies) {
        this.copies = copies;
    }

    /** Opens one worker per member; on failure closes what it opened and throws an AssertionError. */
    static TestDomain open(List<PluginTestKit.Builder> members) {
        members.forEach(PluginTestKit.Builder::checkFile);
        boolean copy = members.size() > 1
                && members.stream()
                        .anyMatch(m -> m.file().map(TestDomain::isNative).orElse(false));
        TestDomain domain = new TestDomain(copy ? temporaryFolder() : null);
        boolean opened = false;
        try {
            for (int i = 0; i < members.size(); i++) {
                domain.workers.add(domain.openWorker(i, members.get(i)));
            }
            opened = true;
            return domain;
        } finally {
            if (!opened) {
                domain.close();
            }
        }
    }

    private TestWorker openWorker(int domainId, PluginTestKit.Builder member) {
        Path path = member.file()
                .map(file -> copies != null && isNative(file) ? copyFor(domainId, file) : file)
                .orElseGet(() -> Path.of("/in-process", "plugin-" + domainId));
        TestHostProcess hostProcess = TestHostProcess.open(
                member.hostProcess(), member.file().map(TestDomain::isNative).orElse(false));
        WorkerHostConfig config = WorkerHostConfig.defaults()
                .withMaxMessageSize(member.maxMessageSize())
                .withDomain(new Lookups())
                .withHostProcesses(hostProcess);
        WorkerHost host;
        try {
            host = WorkerHost.open(
                    domainId + 1L, List.of(new PluginSpec(path, member.pluginId())), member.loader(), config);
        } catch (RuntimeException | Error e) {
            hostProcess.close();
            throw e;
        }
        if (!host.failures().isEmpty()) {
            host.close();
            hostProcess.close();
            throw new AssertionError("the test kit cannot open "
                    + host.failures().values().iterator().next());
        }
        return new TestWorker(this, domainId, host, hostProcess, member);
    }

    /** The workers, by domain id. */
    public List<TestWorker> workers() {
        return Collections.unmodifiableList(workers);
    }

    /** The worker with this domain id. */
    public TestWorker worker(int domainId) {
        if (domainId < 0 || domainId >= workers.size()) {
            throw new IllegalArgumentException(
                    "domain id " + domainId + " is not in this domain of " + workers.size() + " workers");
        }
        return workers.get(domainId);
    }

    public int size() {
        return workers.size();
    }

    /**
     * One round of progress of every open worker, in domain order; what comes out is kept by each
     * worker for its waits ({@link TestWorker#unclaimed()}).
     *
     * @return how many notifications came
     */
    public int progress() {
        checkThread();
        int delivered = 0;
        for (TestWorker worker : workers) {
            delivered += worker.progressOwn();
        }
        return delivered;
    }

    /** Where the copies of native plugins lie while the domain is open; empty when it made none. */
    Optional<Path> copiesFolder() {
        return Optional.ofNullable(copies);
    }

    /** Closes every worker and deletes the plugin copies. Idempotent. */
    @Override
    public void close() {
        checkThread();
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (TestWorker worker : workers) {
                worker.closeOwn();
            }
        } finally {
            if (copies != null) {
                deleteTree(copies);
            }
        }
    }

    void checkThread() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("the test kit's workers are driven by thread '" + owner.getName()
                    + "', which opened them; called from thread '"
                    + Thread.currentThread().getName() + "'");
        }
    }

    private static boolean isNative(Path file) {
        return file.getFileName().toString().endsWith(".so");
    }

    private Path copyFor(int domainId, Path file) {
        try {
            Path folder = Files.createDirectory(copies.resolve("worker-" + domainId));
            return Files.copy(file, folder.resolve(file.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot copy plugin " + file + " for worker " + domainId + ": " + e.getMessage(), e);
        }
    }

    private static Path temporaryFolder() {
        try {
            return Files.createTempDirectory("urom-testkit-");
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot make a temporary folder for the plugin copies: " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the plugin copies in " + root + ": " + e.getMessage(), e);
        }
    }

    /** The look-ups every plugin of the domain is given: peers' addresses, no segments. */
    private final class Lookups implements DomainLookups {
        @Override
        public byte[] address(long domainId) throws UromException {
            if (domainId < 0 || domainId >= workers.size()) {
                throw new UromException(
                        UromStatus.NOT_FOUND,
                        "domain id " + Long.toUnsignedString(domainId) + " is not in the test domain of "
                                + workers.size() + " workers");
            }
            TestWorker peer = workers.get((int) domainId);
            if (peer.isClosed()) {
                throw new UromException(
                        UromStatus.NOT_FOUND,
                        "the worker with domain id " + domainId + " of the test domain is closed");
            }
            return peer.plugin().address();
        }

        @Override
        public int segment(long domainId, long va) throws UromException {
            throw noSegments();
        }

        @Override
        public byte[] memoryHandle(long domainId, int segment) throws UromException {
            throw noSegments();
        }

        @Override
        public byte[] memoryKey(long domainId, int segment) throws UromException {
            throw noSegments();
        }

        private UromException noSegments() {
            return new UromException(UromStatus.NOT_SUPPORTED, "the test kit's domain publishes no memory segments");
        }
    }
}
