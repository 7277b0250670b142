// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.graph;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Checks the shared object that the build's compile phase produced. */
class WorkerGraphLibraryTest {
    @Test
    void exportsExactlyTheTwoEntryPoints() throws IOException, InterruptedException {
        Path library = GraphPluginFiles.nativePlugin();
        Process nm = new ProcessBuilder("nm", "-D", "--defined-only", library.toString())
                .redirectErrorStream(true)
                .start();
        nm.getOutputStream().close();
        String output = new String(nm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(nm.waitFor()).as("nm exit status; output:%n%s", output).isZero();
        List<String> exported = Arrays.stream(output.split("\n"))
                .map(String::strip)
                .filter(line -> !line.isEmpty())
                .map(line -> line.substring(line.lastIndexOf(' ') + 1))
                .toList();
        assertThat(exported).containsExactlyInAnyOrder("urom_plugin_get_iface", "urom_plugin_get_version");
        assertThat(Files.size(library)).isPositive();
    }
}
