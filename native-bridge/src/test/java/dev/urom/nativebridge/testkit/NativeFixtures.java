// SPDX-License-Identifier: Apache-2.0
package dev.urom.nativebridge.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Compiles native plugin fixtures and small test programs with {@code cc} for tests. Every
 * failure (no include directory, a compiler error) throws {@link AssertionError} with the full
 * compiler output, so a fixture that does not build fails the test loudly.
 *
 * <p>Stateless; safe to call from any thread (each call runs its own compiler process).
 */
public final class NativeFixtures {
    /** The system property naming the spi module's C include directory. */
    public static final String INCLUDE_DIR_PROPERTY = "urom.include.dir";

    private NativeFixtures() {}

    /**
     * A file the build made and named in a system property (a plugin the module built, say).
     *
     * @throws AssertionError when the property is not set or the file does not exist
     */
    public static Path builtFile(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new AssertionError("system property " + property + " is not set; the module's pom sets it");
        }
        Path path = Path.of(value).toAbsolutePath();
        if (!Files.isRegularFile(path)) {
            throw new AssertionError(property + "=" + value + " does not exist; build the module with mvn verify");
        }
        return path;
    }

    /** The spi C include directory, from system property {@value #INCLUDE_DIR_PROPERTY}. */
    public static Path includeDir() {
        String value = System.getProperty(INCLUDE_DIR_PROPERTY);
        if (value == null || value.isBlank()) {
            throw new AssertionError(
                    "system property " + INCLUDE_DIR_PROPERTY
                            + " is not set; it must name spi/src/main/c/include (the parent pom sets it for surefire and failsafe)");
        }
        Path dir = Path.of(value).toAbsolutePath();
        if (!Files.isRegularFile(dir.resolve("urom_plugin.h"))) {
            throw new AssertionError(INCLUDE_DIR_PROPERTY + "=" + value + " does not hold urom_plugin.h");
        }
        return dir;
    }

    /** Compiler flags that let a DOCA-style plugin source build against the compat headers. */
    public static String[] docaCompatFlags() {
        Path include = includeDir();
        return new String[] {
            "-I" + include.resolve("compat"),
            "-idirafter",
            include.resolve("compat").resolve("ucx-fallback").toString()
        };
    }

    /**
     * Compiles {@code cSource} into {@code outDir/fileName} with {@code cc -shared -fPIC
     * -fvisibility=hidden -O2 -Wall -I<includeDir> <extraFlags...>}.
     *
     * @return the absolute path of the shared object
     * @throws AssertionError with the compiler output when compilation fails
     */
    public static Path compilePlugin(Path outDir, String fileName, String cSource, String... extraFlags) {
        try {
            Files.createDirectories(outDir);
            Path out = outDir.resolve(fileName).toAbsolutePath();
            String base = fileName.endsWith(".so") ? fileName.substring(0, fileName.length() - 3) : fileName;
            Path source = Files.createTempFile(outDir, base + "-", ".c");
            Files.writeString(source, cSource, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(
                    List.of("cc", "-shared", "-fPIC", "-fvisibility=hidden", "-O2", "-Wall", "-I" + includeDir()));
            command.addAll(List.of(extraFlags));
            command.addAll(List.of("-o", out.toString(), source.toString()));
            run(command, fileName);
            Files.delete(source);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write fixture " + fileName + " into " + outDir, e);
        }
    }

    /**
     * Compiles {@code cSource} into the executable {@code outDir/fileName} with {@code cc -O2 -Wall
     * -Wextra -std=gnu11 <extraFlags...>}.
     *
     * @return the absolute path of the executable
     * @throws AssertionError with the compiler output when compilation fails
     */
    public static Path compileProgram(Path outDir, String fileName, String cSource, String... extraFlags) {
        try {
            Files.createDirectories(outDir);
            Path out = outDir.resolve(fileName).toAbsolutePath();
            Path source = Files.createTempFile(outDir, fileName + "-", ".c");
            Files.writeString(source, cSource, StandardCharsets.UTF_8);
            List<String> command = new ArrayList<>(List.of("cc", "-O2", "-Wall", "-Wextra", "-std=gnu11"));
            command.addAll(List.of(extraFlags));
            command.addAll(List.of("-o", out.toString(), source.toString()));
            run(command, fileName);
            Files.delete(source);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write program " + fileName + " into " + outDir, e);
        }
    }

    /**
     * Compiles a valid minimal plugin into {@code outDir/fileName}: both entry points exported, the
     * right API version, {@code urom_plugin_get_version} answering {@code version}. Its commands
     * are echoed back (payload, type, context and dest id copied) with SUCCESS; its address is
     * the file's base name.
     */
    public static Path compileMinimalPlugin(Path outDir, String fileName, long version) {
        return compilePlugin(outDir, fileName, minimalPluginSource(version, nameWithoutExtension(fileName)));
    }

    /**
     * Compiles the wake-up fixture ({@code wakeup_plugin.c}, next to this class) into {@code
     * outDir/fileName} with {@code flags}: a plugin whose WAIT command completes when a timer
     * descriptor fires, which it exposes as its wake-up fd, that counts its progress and arm calls
     * and can name a transport (the source's comment gives the commands and flags).
     */
    public static Path compileWakeupPlugin(Path outDir, String fileName, String... flags) {
        return compilePlugin(outDir, fileName, wakeupPluginSource(), flags);
    }

    /** The C source of {@link #compileWakeupPlugin}. */
    public static String wakeupPluginSource() {
        try (var in = NativeFixtures.class.getResourceAsStream("wakeup_plugin.c")) {
            if (in == null) {
                throw new AssertionError("wakeup_plugin.c is missing next to " + NativeFixtures.class.getName());
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read wakeup_plugin.c", e);
        }
    }

    /** The C source of {@link #compileMinimalPlugin}. */
    public static String minimalPluginSource(long version, String address) {
        return """
                #include <stdlib.h>
                #include <string.h>
                #include <urom_plugin.h>

                #define EXPORT __attribute__((visibility("default")))

                static urom_list_link_t pending = { &pending, &pending };
                static const char address[] = "%s";

                static urom_status_t echo_open(struct urom_worker_ctx *ctx) { ctx->plugin_ctx = NULL; return UROM_SUCCESS; }
                static void echo_close(struct urom_worker_ctx *ctx) { (void)ctx; }

                static urom_status_t echo_addr(struct urom_worker_ctx *ctx, void *addr, size_t *len)
                {
                	(void)ctx;
                	if (*len < sizeof(address) - 1) { *len = sizeof(address) - 1; return UROM_ERR_INVALID_VALUE; }
                	memcpy(addr, address, sizeof(address) - 1);
                	*len = sizeof(address) - 1;
                	return UROM_SUCCESS;
                }

                static void unlink_node(urom_list_link_t *n) { n->prev->next = n->next; n->next->prev = n->prev; }
                static void append(urom_list_link_t *head, urom_list_link_t *n)
                {
                	n->prev = head->prev; n->next = head; head->prev->next = n; head->prev = n;
                }

                static urom_status_t echo_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)
                {
                	(void)ctx;
                	while (cmds->next != cmds) {
                		struct urom_worker_cmd_desc *c = (struct urom_worker_cmd_desc *)cmds->next;
                		unlink_node(&c->entry);
                		struct urom_worker_notif_desc *n = malloc(sizeof(*n) + c->worker_cmd.len);
                		if (n == NULL) { free(c); return UROM_ERR_NO_MEMORY; }
                		n->dest_id = c->dest_id;
                		n->worker_notif.type = c->worker_cmd.type;
                		n->worker_notif.urom_context = c->worker_cmd.urom_context;
                		n->worker_notif.len = c->worker_cmd.len;
                		n->worker_notif.status = UROM_SUCCESS;
                		n->worker_notif.reserved = 0;
                		memcpy(n->worker_notif.plugin_notif, c->worker_cmd.plugin_cmd, c->worker_cmd.len);
                		append(&pending, &n->entry);
                		free(c);
                	}
                	return UROM_SUCCESS;
                }

                static urom_status_t echo_progress(struct urom_worker_ctx *ctx, urom_list_link_t *out)
                {
                	(void)ctx;
                	if (pending.next == &pending) return UROM_ERR_EMPTY;
                	while (pending.next != &pending) {
                		urom_list_link_t *n = pending.next;
                		unlink_node(n);
                		append(out, n);
                	}
                	return UROM_SUCCESS;
                }

                static urom_status_t echo_pack(struct urom_worker_notify *n, size_t *len, void *out)
                {
                	size_t need = sizeof(*n) + n->len;
                	if (*len < need) { *len = need; return UROM_ERR_INVALID_VALUE; }
                	memcpy(out, n, need);
                	*len = need;
                	return UROM_SUCCESS;
                }

                EXPORT urom_status_t urom_plugin_get_iface(struct urom_plugin_iface *iface)
                {
                	if (iface == NULL) return UROM_ERR_INVALID_VALUE;
                	iface->api_version = UROM_PLUGIN_API_VERSION;
                	iface->open = echo_open;
                	iface->close = echo_close;
                	iface->addr = echo_addr;
                	iface->worker_cmd = echo_cmd;
                	iface->progress = echo_progress;
                	iface->notif_pack = echo_pack;
                	return UROM_SUCCESS;
                }

                EXPORT urom_status_t urom_plugin_get_version(uint64_t *version)
                {
                	if (version == NULL) return UROM_ERR_INVALID_VALUE;
                	*version = %sULL;
                	return UROM_SUCCESS;
                }
                """.formatted(address.replace("\\", "\\\\").replace("\"", "\\\""), Long.toUnsignedString(version));
    }

    /** The DOCA-style fixture's command ops (see {@link #compileDocaStyle}). */
    public static final long DOCA_STYLE_SEND = 1;

    public static final long DOCA_STYLE_RECV = 2;
    public static final long DOCA_STYLE_SAY = 3;
    public static final long DOCA_STYLE_ABORT = 4;
    public static final long DOCA_STYLE_CRASH = 5;
    /** Bytes of the DOCA-style fixture's command and of its notification struct. */
    public static final int DOCA_STYLE_COMMAND_BYTES = 24;

    public static final int DOCA_STYLE_NOTIFICATION_BYTES = 40;

    /**
     * Compiles {@code doca_style.c} (a resource of this test kit) into {@code outDir/fileName} the
     * way the DOCA recipe of docs/sdk.md builds a DOCA plugin: compat headers, {@code
     * -fvisibility=hidden}, entry points defined without a visibility attribute ({@code
     * explicitExport} adds {@code DOCA_EXPORTED} to them). The plugin is written with the habits of
     * NVIDIA's samples that a worker must cope with: an inline receive whose notification points at
     * data later in the same allocation, a {@code notif_pack} of a fixed size that ignores {@code
     * len}, an error both queued and returned for one command; and commands that write to stdout and
     * stderr, abort in glibc (a double free) or crash. The source's comment gives the command and
     * notification layouts; {@link #docaStyleCommand} builds a command and the byte of its inline
     * data at index i is {@link #docaStyleDataByte}.
     */
    public static Path compileDocaStyle(Path outDir, String fileName, boolean explicitExport) {
        String source;
        try (InputStream in = NativeFixtures.class.getResourceAsStream("doca_style.c")) {
            if (in == null) {
                throw new AssertionError("the test kit lacks its resource doca_style.c");
            }
            source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the test kit's doca_style.c", e);
        }
        List<String> flags = new ArrayList<>(List.of(docaCompatFlags()));
        if (explicitExport) {
            flags.add("-DSTYLE_EXPLICIT_EXPORT");
        }
        return compilePlugin(outDir, fileName, source, flags.toArray(String[]::new));
    }

    /** A command of the DOCA-style fixture: op, context and its argument, little-endian. */
    public static byte[] docaStyleCommand(long op, long context, long argument) {
        return ByteBuffer.allocate(DOCA_STYLE_COMMAND_BYTES)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putLong(op)
                .putLong(context)
                .putLong(argument)
                .array();
    }

    /** Byte {@code i} of the DOCA-style fixture's inline receive data. */
    public static byte docaStyleDataByte(int i) {
        return (byte) (i * 7 + 3);
    }

    private static String nameWithoutExtension(String fileName) {
        int dot = fileName.lastIndexOf('.');
        return dot > 0 ? fileName.substring(0, dot) : fileName;
    }

    private static void run(List<String> command, String what) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            if (exit != 0) {
                throw new AssertionError("fixture " + what + " did not compile (cc exit status " + exit + "):\n"
                        + String.join(" ", command) + "\n" + output);
            }
        } catch (IOException e) {
            throw new AssertionError("cannot run the C compiler for fixture " + what + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while compiling fixture " + what, e);
        }
    }
}
