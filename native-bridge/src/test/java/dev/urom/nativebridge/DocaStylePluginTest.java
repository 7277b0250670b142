// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A plugin written the DOCA way ({@link NativeFixtures#compileDocaStyle}), built with docs/sdk.md's
 * DOCA recipe: it is discovered and loaded whether or not its entry points carry a visibility
 * attribute, and its inline receive, whose notification points at data later in the same
 * descriptor, is packed while the descriptor is alive. This module's tests run with {@code
 * MALLOC_PERTURB_} set (the pom), so that glibc fills freed blocks and packing a freed descriptor
 * shows.
 */
class DocaStylePluginTest {
    private static final long PLUGIN_ID = 0x10;

    @TempDir
    static Path dir;

    static Path plain;
    static Path explicit;

    @BeforeAll
    static void build() {
        plain = NativeFixtures.compileDocaStyle(dir, "doca_style.so", false);
        explicit = NativeFixtures.compileDocaStyle(dir, "doca_style_explicit.so", true);
    }

    @Test
    void theTestsRunWithMallocPerturb() {
        assertThat(System.getenv("MALLOC_PERTURB_"))
                .as("MALLOC_PERTURB_ (the native-bridge pom sets it for surefire)")
                .isNotBlank();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void entryPointsWithOrWithoutAVisibilityAttributeAreFoundByTheProbeAndTheLoader(boolean withAttribute)
            throws UromException {
        Path so = withAttribute ? explicit : plain;
        ProbeOutcome outcome = NativeProbe.probe(so, Duration.ofSeconds(30));
        assertThat(outcome.accepted())
                .as("probe of %s: %s", so.getFileName(), outcome)
                .isTrue();
        NativePlugin plugin = NativePlugin.load(so);
        assertThat(plugin.version()).isEqualTo(1);
        plugin.open(TestContext.withoutDomain());
        plugin.close();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 100, 4096, 70_000})
    void anInlineReceiveIsPackedFromThePluginsOwnLiveDescriptor(int count) throws UromException {
        NativePlugin plugin = NativePlugin.load(plain);
        plugin.open(TestContext.withoutDomain());
        try {
            plugin.workerCommand(new WorkerCommand(
                    9, PLUGIN_ID, 77, NativeFixtures.docaStyleCommand(NativeFixtures.DOCA_STYLE_RECV, 5, count)));
            List<WorkerNotification> out = new ArrayList<>();
            plugin.progress(out);

            assertThat(out).hasSize(1);
            WorkerNotification n = out.get(0);
            assertThat(n.status()).isEqualTo(UromStatus.SUCCESS);
            assertThat(n.uromContext()).isEqualTo(77);
            byte[] wire = plugin.packNotification(n);
            ByteBuffer body = ByteBuffer.wrap(wire).order(ByteOrder.LITTLE_ENDIAN);
            assertThat(body.getLong(16)).as("len").isEqualTo(NativeFixtures.DOCA_STYLE_NOTIFICATION_BYTES + count);
            int data = WorkerNotification.HEADER_BYTES + NativeFixtures.DOCA_STYLE_NOTIFICATION_BYTES;
            assertThat(wire).hasSize(data + count);
            assertThat(body.getLong(WorkerNotification.HEADER_BYTES))
                    .as("op")
                    .isEqualTo(NativeFixtures.DOCA_STYLE_RECV);
            assertThat(body.getLong(WorkerNotification.HEADER_BYTES + 24))
                    .as("count")
                    .isEqualTo(count);
            for (int i = 0; i < count; i++) {
                if (wire[data + i] != NativeFixtures.docaStyleDataByte(i)) {
                    throw new AssertionError(
                            "inline byte " + i + " of " + count + " is 0x" + Integer.toHexString(wire[data + i] & 0xff)
                                    + ", not 0x" + Integer.toHexString(NativeFixtures.docaStyleDataByte(i) & 0xff)
                                    + ": packed from freed memory");
                }
            }
        } finally {
            plugin.close();
        }
    }

    @Test
    void aCommandThePluginRefusesThrowsItsStatusWithTheErrorItLoggedAndQueuesNothing() throws UromException {
        NativePlugin plugin = NativePlugin.load(plain);
        plugin.open(TestContext.withoutDomain());
        try {
            assertThatThrownBy(() -> plugin.workerCommand(new WorkerCommand(9, PLUGIN_ID, 1, new byte[3])))
                    .isInstanceOf(UromException.class)
                    .hasMessage("command of 3 bytes refused")
                    .extracting(e -> ((UromException) e).status())
                    .isEqualTo(UromStatus.INVALID_VALUE);
            List<WorkerNotification> out = new ArrayList<>();
            plugin.progress(out);
            assertThat(out).isEmpty();
        } finally {
            plugin.close();
        }
    }
}
