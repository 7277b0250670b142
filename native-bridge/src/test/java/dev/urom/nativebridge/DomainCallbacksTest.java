// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.spi.DomainLookups;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The four domain look-ups, called by a native plugin, reach the worker's {@link DomainLookups}. */
class DomainCallbacksTest {
    @TempDir
    static Path dir;

    static Path plugin;

    private static final byte[] PEER_ADDRESS = "peer-7-address".getBytes(StandardCharsets.US_ASCII);

    /** Knows domain id 7 only. */
    private static final DomainLookups DOMAIN = new DomainLookups() {
        @Override
        public byte[] address(long domainId) throws UromException {
            known(domainId);
            return PEER_ADDRESS;
        }

        @Override
        public int segment(long domainId, long va) throws UromException {
            known(domainId);
            return (int) (va >>> 12);
        }

        @Override
        public byte[] memoryHandle(long domainId, int segment) throws UromException {
            known(domainId);
            return ("memh" + segment).getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public byte[] memoryKey(long domainId, int segment) throws UromException {
            known(domainId);
            throw new IllegalStateException("a bug in the look-up");
        }

        private void known(long domainId) throws UromException {
            if (domainId != 7) {
                throw new UromException(UromStatus.NOT_FOUND, "no peer " + domainId);
            }
        }
    };

    @BeforeAll
    static void build() {
        plugin = TestPlugins.build(dir, "domain.c", "domain.so");
    }

    private static WorkerNotification ask(long op, long domainId, long size) throws UromException {
        NativePlugin loaded = NativePlugin.load(plugin);
        loaded.open(new TestContext(1, 0x8, DOMAIN));
        try {
            byte[] request = ByteBuffer.allocate(24)
                    .order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(op)
                    .putLong(domainId)
                    .putLong(size)
                    .array();
            loaded.workerCommand(new WorkerCommand(1, 0x8, 5, request));
            List<WorkerNotification> out = new ArrayList<>();
            loaded.progress(out);
            assertThat(out).hasSize(1);
            return out.get(0);
        } finally {
            loaded.close();
        }
    }

    private static long u64(byte[] bytes, int offset) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getLong(offset);
    }

    @Test
    void addressLookupHandsOverNativeMemory() throws UromException {
        WorkerNotification n = ask(0, 7, PEER_ADDRESS.length);
        assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(n.payload()).isEqualTo(PEER_ADDRESS);
    }

    @Test
    void anUnknownPeerIsNotFound() throws UromException {
        WorkerNotification n = ask(0, 9, PEER_ADDRESS.length);
        assertThat(n.status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(n.payload()).isEmpty();
    }

    @Test
    void segmentLookup() throws UromException {
        WorkerNotification n = ask(1, 7, 0x5000);
        assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(u64(n.payload(), 0)).isEqualTo(5);
    }

    @Test
    void memoryHandleLookupReturnsLengthAndBytes() throws UromException {
        WorkerNotification n = ask(2, 7, 3);
        assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(u64(n.payload(), 0)).isEqualTo(5);
        assertThat(Arrays.copyOfRange(n.payload(), 8, n.payload().length))
                .isEqualTo("memh3".getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void anExceptionInALookupBecomesUnexpected() throws UromException {
        assertThat(ask(3, 7, 1).status()).isEqualTo(UromStatus.UNEXPECTED);
        assertThat(ask(3, 8, 1).status()).isEqualTo(UromStatus.NOT_FOUND);
    }
}
