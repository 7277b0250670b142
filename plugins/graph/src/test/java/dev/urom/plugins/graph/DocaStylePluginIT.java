// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static dev.urom.testkit.PluginAssertions.assertThat;

import dev.urom.framework.worker.WorkerAnswer;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromException;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import dev.urom.testkit.TestWorker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A plugin written the DOCA way ({@code src/test/c/doca_style_counter.c}: DOCA's headers, log
 * macros, status codes, {@code DOCA_STRUCT_CTOR}, UCX's list helpers) builds unchanged against the
 * compatibility headers, once with UCX's {@code <ucs/datastruct/list.h>} and once with the
 * fallback copy, and both builds behave the same in a test kit worker.
 */
class DocaStylePluginIT {
    static final String SOURCE_PROPERTY = "graph.doca.style.source";
    private static final long PLUGIN_ID = 1L << 1;

    @TempDir
    static Path buildDir;

    private static Path withUcx;
    private static Path withFallback;

    @BeforeAll
    static void compileBothWays() throws IOException {
        String source = Files.readString(sourceFile(), StandardCharsets.UTF_8);
        Path compat = NativeFixtures.includeDir().resolve("compat");
        requireUcxHeaders();
        withUcx = NativeFixtures.compilePlugin(
                buildDir,
                "doca_counter_ucx.so",
                source,
                "-I" + compat,
                "-idirafter",
                compat.resolve("ucx-fallback").toString());
        withFallback = NativeFixtures.compilePlugin(
                buildDir, "doca_counter_fallback.so", source, "-I" + compat, "-I" + compat.resolve("ucx-fallback"));
    }

    static Stream<Named<Path>> builds() {
        return Stream.of(Named.of("with UCX's list.h", withUcx), Named.of("with the fallback list.h", withFallback));
    }

    @Test
    void theUcxBuildReallyUsedUcxsHeaderAndTheOtherTheFallback() {
        assertThat(addressOf(withUcx))
                .as("list header compiled into the UCX build: with -idirafter the system's "
                        + "<ucs/datastruct/list.h> must win; install libucx-dev")
                .isEqualTo("ucx");
        assertThat(addressOf(withFallback))
                .as("list header compiled into the fallback build")
                .isEqualTo("fallback");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("builds")
    void addsKeepARunningSumAndCopyTheHeaders(Path plugin) {
        try (TestWorker worker = GraphHosts.kit(plugin, PLUGIN_ID).open()) {
            long[] values = {5, -3, 10, Long.MAX_VALUE};
            long sum = 0;
            for (int i = 0; i < values.length; i++) {
                sum += values[i];
                WorkerCommand command = worker.send(new WorkerCommand(100 + i, PLUGIN_ID, i, add(values[i])));

                assertThat(worker.awaitAnswer(command))
                        .as("answer to ADD %d", values[i])
                        .answers(command)
                        .isSuccessful()
                        .hasPayload(message(0, sum));
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("builds")
    void refusedCommandsLeaveTheSumAlone(Path plugin) {
        try (TestWorker worker = GraphHosts.kit(plugin, PLUGIN_ID).open()) {
            worker.call(add(7));

            assertThat(worker.call(new byte[15])).isRefusedWith(UromStatus.INVALID_VALUE);
            assertThat(worker.call(message(9, 100))).isRefusedWith(UromStatus.NOT_SUPPORTED);
            assertThat(worker.call(add(1))).hasPayload(message(0, 8));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("builds")
    void notificationsPackAsHeaderThenPayload(Path plugin) {
        try (TestWorker worker = GraphHosts.kit(plugin, PLUGIN_ID).open()) {
            WorkerAnswer answer = worker.awaitAnswer(worker.send(0x55, add(-1)));

            assertThat(HexFormat.of().formatHex(worker.pack(answer)))
                    .isEqualTo("0200000000000000" + "5500000000000000" + "1000000000000000" + "00000000" + "00000000"
                            + "0000000000000000" + "ffffffffffffffff");
        }
    }

    @Test
    void bothBuildsAnswerTheSameSequenceAlike() {
        assertThat(run(withFallback)).isEqualTo(run(withUcx));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("builds")
    void versionIsWhatThePluginAnswers(Path plugin) throws UromException {
        assertThat(NativePlugin.load(plugin).version()).isEqualTo(3);
    }

    private static List<String> run(Path plugin) {
        List<String> lines = new ArrayList<>();
        try (TestWorker worker = GraphHosts.kit(plugin, PLUGIN_ID).open()) {
            byte[][] payloads = {add(1), add(2), new byte[0], message(1, 5), add(-10), new byte[17], add(Long.MIN_VALUE)
            };
            for (int i = 0; i < payloads.length; i++) {
                WorkerAnswer n = worker.awaitAnswer(worker.send(new WorkerCommand(i * 3L, PLUGIN_ID, i, payloads[i])));
                lines.add(n.destId() + " " + n.uromContext() + " " + n.status() + " "
                        + HexFormat.of().formatHex(n.payload()));
            }
        }
        return lines;
    }

    private static String addressOf(Path plugin) {
        try (TestWorker worker = GraphHosts.kit(plugin, PLUGIN_ID).open()) {
            return new String(worker.address(), StandardCharsets.US_ASCII);
        }
    }

    private static byte[] add(long value) {
        return message(0, value);
    }

    private static byte[] message(long op, long value) {
        return ByteBuffer.allocate(16)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(op)
                .putLong(value)
                .array();
    }

    /** Fails, never skips, when UCX's headers are missing: the UCX half of this test needs them. */
    private static void requireUcxHeaders() {
        try {
            NativeFixtures.compilePlugin(buildDir, "ucx_probe.so", """
                    #include <ucs/datastruct/list.h>
                    #ifndef UCS_LIST_H_
                    #error "this <ucs/datastruct/list.h> is not UCX's"
                    #endif
                    int ucx_probe_unused(void) { return 0; }
                    """);
        } catch (AssertionError e) {
            throw new AssertionError(
                    "UCX's <ucs/datastruct/list.h> is not installed: install libucx-dev "
                            + "(apt-get install libucx-dev) to run this test. " + e.getMessage(),
                    e);
        }
    }

    private static Path sourceFile() {
        String value = System.getProperty(SOURCE_PROPERTY);
        if (value == null || value.isBlank()) {
            throw new AssertionError(
                    "system property " + SOURCE_PROPERTY + " is not set; the module's pom sets it for failsafe");
        }
        return Path.of(value);
    }
}
