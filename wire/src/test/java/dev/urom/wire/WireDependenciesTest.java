// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * What hosts, the daemon and workers share sits below all of them: the bytecode of urom-wire, as
 * {@code jdeps} reads it, refers to the JDK's base packages, urom-spi and its own packages, and to
 * nothing of the host API ({@code dev.urom.host}, {@code dev.urom.oob}) or the worker side.
 */
class WireDependenciesTest {
    private static final List<String> ALLOWED =
            List.of("java.", "javax.crypto", "dev.urom.spi", "dev.urom.wire", "dev.urom.auth");

    @Test
    void theWireModuleDependsOnTheJdkAndUromSpiOnly() throws Exception {
        Path classes = Path.of(Protocol.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        Path spi = Path.of(dev.urom.spi.UromStatus.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        ToolProvider jdeps =
                ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
        StringWriter out = new StringWriter();
        int status = jdeps.run(
                new PrintWriter(out),
                new PrintWriter(out),
                "-verbose:package",
                "-cp",
                spi.toString(),
                classes.toString());
        assertThat(status).as(out.toString()).isZero();

        Set<String> referenced = new TreeSet<>();
        for (String line : out.toString().split("\n")) {
            // "   PACKAGE -> PACKAGE  ARCHIVE" per dependency; unindented lines sum up per archive.
            String[] words = line.trim().split("\\s+");
            if (line.startsWith(" ") && words.length >= 3 && words[1].equals("->")) {
                referenced.add(words[2]);
            }
        }
        assertThat(referenced).as(out.toString()).contains("dev.urom.spi", "dev.urom.auth", "java.nio.channels");
        assertThat(referenced)
                .allSatisfy(p ->
                        assertThat(ALLOWED).anySatisfy(prefix -> assertThat(p).startsWith(prefix)));
    }
}
