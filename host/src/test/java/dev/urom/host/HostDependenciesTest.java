// SPDX-License-Identifier: Apache-2.0
package dev.urom.host;

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
 * What a host application pulls in: the bytecode of urom-host, as {@code jdeps} reads it, refers to
 * the JDK's base packages, urom-spi, urom-wire and its own packages, and nothing else (no JNA, PF4J,
 * Caffeine, Log4j, nothing of the worker side); the wire protocol and the keys live in urom-wire,
 * not here.
 */
class HostDependenciesTest {
    private static final List<String> ALLOWED = List.of(
            "java.", "javax.crypto", "dev.urom.spi", "dev.urom.host", "dev.urom.wire", "dev.urom.auth", "dev.urom.oob");

    @Test
    void theHostModuleDependsOnTheJdkUromSpiAndUromWireOnly() throws Exception {
        Path classes = locationOf(UromService.class);
        Path spi = locationOf(dev.urom.spi.UromStatus.class);
        Path wire = locationOf(dev.urom.wire.Protocol.class);
        ToolProvider jdeps =
                ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("this JDK has no jdeps"));
        StringWriter out = new StringWriter();
        int status = jdeps.run(
                new PrintWriter(out),
                new PrintWriter(out),
                "-verbose:package",
                "-cp",
                spi + java.io.File.pathSeparator + wire,
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
        assertThat(referenced)
                .as(out.toString())
                .contains("dev.urom.spi", "dev.urom.wire", "dev.urom.auth", "java.nio.channels");
        assertThat(referenced)
                .allSatisfy(p ->
                        assertThat(ALLOWED).anySatisfy(prefix -> assertThat(p).startsWith(prefix)));
    }

    @Test
    void theWireProtocolAndTheKeysComeFromUromWire() throws Exception {
        Path classes = locationOf(UromService.class);
        assertThat(classes.resolve("dev/urom/host/UromService.class"))
                .as("urom-host's classes folder")
                .isRegularFile();
        assertThat(locationOf(dev.urom.wire.Protocol.class)).isNotEqualTo(classes);
        assertThat(locationOf(dev.urom.auth.AuthKey.class)).isNotEqualTo(classes);
        assertThat(classes.resolve("dev/urom/wire")).doesNotExist();
        assertThat(classes.resolve("dev/urom/auth")).doesNotExist();
    }

    private static Path locationOf(Class<?> type) throws Exception {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
