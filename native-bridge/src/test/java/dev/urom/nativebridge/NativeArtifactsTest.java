// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeArtifactsTest {
    @TempDir
    Path dir;

    @Test
    void findsTheBuiltFilesOnTheClassPath() throws IOException {
        assertThat(NativeArtifacts.bridgeLibrary()).isRegularFile().hasFileName("liburom_bridge.so");
        assertThat(NativeArtifacts.probeExecutable())
                .isRegularFile()
                .isExecutable()
                .hasFileName("urom-probe");
        assertThat(NativeArtifacts.launcherExecutable())
                .isRegularFile()
                .isExecutable()
                .hasFileName("urom-launch")
                .hasParent(NativeArtifacts.probeExecutable().getParent());
    }

    @Test
    void usesTheConfiguredDirectory() throws IOException {
        Files.writeString(dir.resolve("liburom_bridge.so"), "bridge");
        Files.writeString(dir.resolve("urom-probe"), "probe");
        Files.writeString(dir.resolve("urom-launch"), "launcher");
        assertThat(NativeArtifacts.locate(dir.toString(), ClassLoader.getPlatformClassLoader()))
                .isEqualTo(dir);
    }

    @Test
    void aConfiguredDirectoryMustHoldAllThreeFiles() throws IOException {
        Files.writeString(dir.resolve("liburom_bridge.so"), "bridge");
        assertThatThrownBy(() -> NativeArtifacts.locate(dir.toString(), ClassLoader.getPlatformClassLoader()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("native file urom-probe is missing from directory " + dir
                        + " (system property urom.native.dir)");
        Files.writeString(dir.resolve("urom-probe"), "probe");
        assertThatThrownBy(() -> NativeArtifacts.locate(dir.toString(), ClassLoader.getPlatformClassLoader()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("native file urom-launch is missing from directory " + dir
                        + " (system property urom.native.dir)");
    }

    @Test
    void failsClearlyWhenTheResourcesAreMissing() {
        assertThatThrownBy(() -> NativeArtifacts.locate(null, ClassLoader.getPlatformClassLoader()))
                .hasMessage("native file liburom_bridge.so is missing: not in the class path at "
                        + "dev/urom/nativebridge/native/ and system property urom.native.dir is not set");
    }

    @Test
    void extractsFilesFromAJarIntoADirectoryOnlyThisUserMayWrite() throws IOException {
        Path jar = dir.resolve("natives.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            put(out, "dev/urom/nativebridge/native/liburom_bridge.so", "bridge bytes");
            put(out, "dev/urom/nativebridge/native/urom-probe", "probe bytes");
            put(out, "dev/urom/nativebridge/native/urom-launch", "launcher bytes");
        }
        Path extracted = null;
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            extracted = NativeArtifacts.locate(null, loader);
            assertThat(extracted)
                    .isNotEqualTo(dir)
                    .hasParent(NativeArtifacts.temporaryDirectory(System.getenv("TMPDIR")));
            assertThat(extracted.getFileName().toString())
                    .startsWith("urom-native-" + ProcessHandle.current().pid() + "-");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(extracted)))
                    .isEqualTo("rwxr-xr-x");
            assertThat(extracted.resolve("liburom_bridge.so")).hasContent("bridge bytes");
            assertThat(extracted.resolve("urom-probe"))
                    .hasContent("probe bytes")
                    .isExecutable();
            assertThat(extracted.resolve("urom-launch")).hasContent("launcher bytes");
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(extracted.resolve("urom-launch"))))
                    .isEqualTo("rwxr-xr-x");
        } finally {
            if (extracted != null) {
                for (String name : new String[] {"liburom_bridge.so", "urom-probe", "urom-launch", ""}) {
                    Files.deleteIfExists(extracted.resolve(name));
                }
            }
        }
    }

    @Test
    void extractsIntoTmpdirWhenItNamesADirectoryAndJavaIoTmpdirIsTheDefault() throws IOException {
        String javaTmp = System.getProperty("java.io.tmpdir");
        try {
            System.setProperty("java.io.tmpdir", "/tmp");
            assertThat(NativeArtifacts.temporaryDirectory(dir.toString())).isEqualTo(dir);
            assertThat(NativeArtifacts.temporaryDirectory(null)).isEqualTo(Path.of("/tmp"));
            assertThat(NativeArtifacts.temporaryDirectory("")).isEqualTo(Path.of("/tmp"));
            assertThat(NativeArtifacts.temporaryDirectory("relative")).isEqualTo(Path.of("/tmp"));
            assertThat(NativeArtifacts.temporaryDirectory(dir.resolve("missing").toString()))
                    .isEqualTo(Path.of("/tmp"));
            assertThat(NativeArtifacts.temporaryDirectory(
                            Files.writeString(dir.resolve("file"), "").toString()))
                    .isEqualTo(Path.of("/tmp"));

            Path chosen = Files.createDirectory(dir.resolve("chosen"));
            System.setProperty("java.io.tmpdir", chosen.toString());
            assertThat(NativeArtifacts.temporaryDirectory(dir.toString()))
                    .as("an explicit java.io.tmpdir")
                    .isEqualTo(chosen);
        } finally {
            System.setProperty("java.io.tmpdir", javaTmp);
        }
    }

    @Test
    void aJarWithoutTheLauncherIsRefusedNamingIt() throws IOException {
        Path jar = dir.resolve("old-natives.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            put(out, "dev/urom/nativebridge/native/liburom_bridge.so", "bridge bytes");
            put(out, "dev/urom/nativebridge/native/urom-probe", "probe bytes");
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, null)) {
            assertThatThrownBy(() -> NativeArtifacts.locate(null, loader))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("native file urom-launch is missing: not in the class path at "
                            + "dev/urom/nativebridge/native/ and system property urom.native.dir is not set");
        }
    }

    private static void put(JarOutputStream out, String name, String content) throws IOException {
        out.putNextEntry(new JarEntry(name));
        OutputStream entry = out;
        entry.write(content.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.closeEntry();
    }
}
