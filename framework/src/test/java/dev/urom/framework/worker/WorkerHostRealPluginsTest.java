// SPDX-License-Identifier: Apache-2.0
package dev.urom.framework.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.javaplugin.JavaPlugin;
import dev.urom.framework.worker.fixtures.ReversingPlugin;
import dev.urom.nativebridge.NativePlugin;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.spi.PluginIface;
import dev.urom.spi.UromStatus;
import dev.urom.spi.WorkerCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The worker host with real plugin files: jars through their own class loaders, {@code .so} files through JNA. */
class WorkerHostRealPluginsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private WorkerHost host;

    @AfterEach
    void closeHost() {
        if (host != null) {
            host.close();
        }
    }

    @Test
    void aJavaJarAndNativePluginsAnswerInTheSameHost() throws IOException {
        Path jar = reversingPluginJar("reverse.jar");
        Path echo = NativeFixtures.compileMinimalPlugin(dir, "echo.so", 3);
        Path refusing = NativeFixtures.compilePlugin(dir, "refusing.so", RefusingNativePlugin.source());

        host = WorkerHost.open(
                5,
                PluginSpec.parseAll(List.of(jar + ":1", echo + ":0x2", refusing + ":4")),
                PluginLoader.standard(),
                WorkerHostConfig.defaults());

        assertThat(host.failures()).isEmpty();
        WorkerAnswer reversed = host.call(command(1, 10, "abc"), TIMEOUT);
        assertThat(reversed.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reversed.payload()).asString().isEqualTo("cba");
        assertThat(reversed.destId()).isEqualTo(99);

        WorkerAnswer echoed = host.call(command(2, 11, "hello native"), TIMEOUT);
        assertThat(echoed.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(echoed.payload()).asString().isEqualTo("hello native");
        assertThat(echoed.type()).isEqualTo(2);
        assertThat(echoed.uromContext()).isEqualTo(11);
        assertThat(echoed.destId()).isEqualTo(99);

        WorkerAnswer nativeRefusal = host.call(command(4, 12, "x"), TIMEOUT);
        assertThat(nativeRefusal.status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(nativeRefusal.payload()).isEmpty();
        assertThat(nativeRefusal.refusalReason())
                .as("a native plugin that logged no reason: the status it returned")
                .hasValue("worker_cmd returned NOT_SUPPORTED (4)");
        WorkerAnswer javaRefusal = host.call(command(1, 13, ""), TIMEOUT);
        assertThat(javaRefusal.status()).isEqualTo(UromStatus.INVALID_VALUE);
        assertThat(javaRefusal.payload()).isEmpty();
        assertThat(javaRefusal.refusalReason()).hasValue("reversing plugin: the command is empty");
        assertThat(javaRefusal.madeByWorker()).isTrue();
        assertThat(host.call(command(8, 14, "x"), TIMEOUT).status()).isEqualTo(UromStatus.NOT_FOUND);

        PluginIface javaPlugin = host.plugin(1).orElseThrow();
        assertThat(javaPlugin).isInstanceOf(JavaPlugin.class);
        ClassLoader pluginLoader =
                ((JavaPlugin) javaPlugin).instance().getClass().getClassLoader();
        assertThat(pluginLoader)
                .as("the plugin class comes from the jar, in its own class loader")
                .isNotSameAs(ReversingPlugin.class.getClassLoader())
                .isSameAs(((JavaPlugin) javaPlugin).classLoader());
        assertThat(host.plugin(2).orElseThrow())
                .isInstanceOfSatisfying(
                        NativePlugin.class, p -> assertThat(p.version()).isEqualTo(3));
    }

    @Test
    void theMaximumMessageSizeHoldsForNativePluginsAndTheHostGoesOn() {
        Path echo = NativeFixtures.compileMinimalPlugin(dir, "echo.so", 1);
        host = WorkerHost.open(
                5, List.of(new PluginSpec(echo, 1)), PluginLoader.standard(), WorkerHostConfig.defaults());
        int maxPayload = WorkerHostConfig.DEFAULT_MAX_MESSAGE_SIZE - WorkerCommand.HEADER_BYTES;
        byte[] largest = new byte[maxPayload];
        largest[maxPayload - 1] = 7;

        WorkerAnswer accepted = host.call(new WorkerCommand(1, 1, 1, largest), TIMEOUT);
        WorkerAnswer refused = host.call(new WorkerCommand(1, 1, 2, new byte[maxPayload + 1]), TIMEOUT);
        WorkerAnswer after = host.call(command(1, 3, "still here"), TIMEOUT);

        assertThat(accepted.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(accepted.payload()).isEqualTo(largest);
        assertThat(refused.status()).isEqualTo(UromStatus.TOO_BIG);
        assertThat(after.payload()).asString().isEqualTo("still here");
    }

    @Test
    void pluginFilesThatCannotBeLoadedOrOpenedAreRecordedAndTheOthersWork() throws IOException {
        Path echo = NativeFixtures.compileMinimalPlugin(dir, "echo.so", 1);
        Path failingOpen =
                NativeFixtures.compilePlugin(dir, "failing_open.so", RefusingNativePlugin.source(), "-DFAIL_OPEN");
        Path notAPlugin = Files.writeString(dir.resolve("notes.txt"), "hello");
        Path noDescriptor = dir.resolve("plain.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(noDescriptor))) {
            out.putNextEntry(new JarEntry("readme.txt"));
            out.write("no plugin here".getBytes(StandardCharsets.UTF_8));
        }

        host = WorkerHost.open(
                5,
                PluginSpec.parseAll(List.of(
                        dir.resolve("missing.so") + ":1",
                        failingOpen + ":2",
                        notAPlugin + ":4",
                        noDescriptor + ":8",
                        echo + ":16")),
                PluginLoader.standard(),
                WorkerHostConfig.defaults());

        assertThat(host.failures()).containsOnlyKeys(1L, 2L, 4L, 8L);
        assertThat(host.failures().get(1L).status()).isEqualTo(UromStatus.NOT_FOUND);
        assertThat(host.failures().get(2L).status()).isEqualTo(UromStatus.NO_MEMORY);
        assertThat(host.failures().get(4L).status()).isEqualTo(UromStatus.NOT_SUPPORTED);
        assertThat(host.failures().get(8L).status()).isEqualTo(UromStatus.INITIALIZATION);
        assertThat(host.failures().values())
                .allSatisfy(failure -> assertThat(failure.toString())
                        .contains(failure.spec().toString())
                        .doesNotContain("\n"));

        assertThat(host.call(command(2, 1, "x"), TIMEOUT).status()).isEqualTo(UromStatus.NO_MEMORY);
        assertThat(host.call(command(8, 2, "x"), TIMEOUT).status()).isEqualTo(UromStatus.INITIALIZATION);
        assertThat(host.call(command(16, 3, "works"), TIMEOUT).payload())
                .asString()
                .isEqualTo("works");
    }

    private Path reversingPluginJar(String fileName) throws IOException {
        Manifest manifest = new Manifest();
        Attributes attributes = manifest.getMainAttributes();
        attributes.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        attributes.putValue("Plugin-Id", "reverse");
        attributes.putValue("Plugin-Version", "7");
        attributes.putValue("Plugin-Class", ReversingPlugin.class.getName());
        Path jar = dir.resolve(fileName);
        String classFile = ReversingPlugin.class.getName().replace('.', '/') + ".class";
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest);
                InputStream in = ReversingPlugin.class.getClassLoader().getResourceAsStream(classFile)) {
            assertThat(in).as("class file %s on the test class path", classFile).isNotNull();
            out.putNextEntry(new JarEntry(classFile));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    private static WorkerCommand command(long pluginId, long context, String text) {
        return new WorkerCommand(99, pluginId, context, text.getBytes(StandardCharsets.UTF_8));
    }
}
