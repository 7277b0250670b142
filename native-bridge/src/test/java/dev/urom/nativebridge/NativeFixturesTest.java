// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.UromException;
import dev.urom.spi.WorkerCommand;
import dev.urom.spi.WorkerNotification;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The test kit that other modules use. */
class NativeFixturesTest {
    @TempDir
    Path dir;

    @Test
    void theMinimalPluginLoadsAndEchoes() throws UromException {
        Path so = NativeFixtures.compileMinimalPlugin(dir, "minimal.so", 9);
        NativePlugin plugin = NativePlugin.load(so);
        assertThat(plugin.version()).isEqualTo(9);
        plugin.open(TestContext.withoutDomain());
        assertThat(new String(plugin.address())).isEqualTo("minimal");
        plugin.workerCommand(new WorkerCommand(2, 4, 6, new byte[] {1, 2, 3}));
        List<WorkerNotification> out = new ArrayList<>();
        plugin.progress(out);
        assertThat(out).singleElement().satisfies(n -> {
            assertThat(n.uromContext()).isEqualTo(6);
            assertThat(n.payload()).containsExactly(1, 2, 3);
        });
        plugin.close();
    }

    @Test
    void aFixtureThatDoesNotCompileFailsWithTheCompilerOutput() {
        assertThatThrownBy(() -> NativeFixtures.compilePlugin(dir, "broken.so", "int broken = ;\n"))
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("fixture broken.so did not compile (cc exit status 1):")
                .hasMessageContaining("error");
    }

    @Test
    void theIncludeDirHoldsTheAbiHeader() {
        assertThat(NativeFixtures.includeDir().resolve("urom_plugin.h")).isRegularFile();
    }
}
