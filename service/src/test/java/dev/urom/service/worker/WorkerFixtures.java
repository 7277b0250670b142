// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** Native plugins for the worker tests, compiled with {@code cc} from variants of the minimal echo plugin. */
final class WorkerFixtures {
    private static final String OPEN =
            "static urom_status_t echo_open(struct urom_worker_ctx *ctx) { ctx->plugin_ctx = NULL; return UROM_SUCCESS; }";
    private static final String CMD =
            "static urom_status_t echo_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)\n{";

    private WorkerFixtures() {}

    /** Echoes every command back (payload, type, context, dest id) with SUCCESS. */
    static Path echo(Path dir, String fileName) {
        return NativeFixtures.compileMinimalPlugin(dir, fileName, 1);
    }

    /** The echo plugin that logs through DOCA_LOG_INFO when opened and UROM_LOG_WARN for each command batch. */
    static Path logging(Path dir) {
        String source = replace(base("logging"), OPEN, """
                #include <doca_log.h>
                DOCA_LOG_REGISTER(TEST::WORKER::LOGGING);
                static urom_status_t echo_open(struct urom_worker_ctx *ctx)
                {
                	ctx->plugin_ctx = NULL;
                	DOCA_LOG_INFO("logging plugin opened, worker %lu", (unsigned long)42);
                	return UROM_SUCCESS;
                }""");
        source = replace(source, CMD, CMD + "\n\tUROM_LOG_WARN(\"logging plugin got a command batch\");");
        return NativeFixtures.compilePlugin(dir, "logging.so", source, NativeFixtures.docaCompatFlags());
    }

    /** A plugin whose open fails with NOT_PERMITTED. */
    static Path failingOpen(Path dir) {
        String source = replace(
                base("refusing"),
                OPEN,
                "static urom_status_t echo_open(struct urom_worker_ctx *ctx) { (void)ctx; return UROM_ERR_NOT_PERMITTED; }");
        return NativeFixtures.compilePlugin(dir, "refusing.so", source);
    }

    /** A plugin whose worker_cmd writes through a null pointer. */
    static Path crashing(Path dir) {
        String source = replace(base("crashing"), CMD, CMD + "\n\t*(volatile int *)0 = 1;");
        return NativeFixtures.compilePlugin(dir, "crashing.so", source);
    }

    /** A PF4J plugin jar at {@code jar} holding {@code pluginClass} alone, with its id and version in the manifest. */
    static Path javaPluginJar(Path jar, String id, String version, Class<?> pluginClass) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Plugin-Id", id);
        manifest.getMainAttributes().putValue("Plugin-Version", version);
        manifest.getMainAttributes().putValue("Plugin-Class", pluginClass.getName());
        String entry = pluginClass.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                InputStream in = pluginClass.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        return jar;
    }

    /**
     * A plugin whose address is {@code native-<pid>} plus its NUL; a command holds a u64 domain id
     * and is answered with the string that {@code domain_iface.addr_lookup} gives for it, or with
     * the look-up's status and no payload.
     */
    static Path domainPeer(Path dir) {
        String source = replace(base("unused"), "static const char address[] = \"unused\";", """
                #include <stdio.h>
                #include <unistd.h>
                static char address[64];
                """);
        source = replace(source, OPEN, """
                static urom_status_t echo_open(struct urom_worker_ctx *ctx)
                {
                	ctx->plugin_ctx = NULL;
                	snprintf(address, sizeof(address) - 1, "native-%ld", (long)getpid());
                	return UROM_SUCCESS;
                }""");
        source = replace(
                source,
                "memcpy(addr, address, sizeof(address) - 1);\n\t*len = sizeof(address) - 1;",
                "memcpy(addr, address, strlen(address) + 1);\n\t*len = strlen(address) + 1;");
        source = replace(
                source,
                "if (*len < sizeof(address) - 1) { *len = sizeof(address) - 1; return UROM_ERR_INVALID_VALUE; }",
                "if (*len < strlen(address) + 1) { *len = strlen(address) + 1; return UROM_ERR_INVALID_VALUE; }");
        String from = "struct urom_worker_notif_desc *n = malloc(sizeof(*n) + c->worker_cmd.len);";
        String to = "memcpy(n->worker_notif.plugin_notif, c->worker_cmd.plugin_cmd, c->worker_cmd.len);";
        int begin = source.indexOf(from);
        int finish = source.indexOf(to);
        if (begin < 0 || finish < begin) {
            throw new AssertionError("the minimal plugin source no longer builds its notification as expected");
        }
        source = source.substring(0, begin) + """
                uint64_t domain_id = 0;
                void *peer = NULL;
                urom_status_t status = UROM_ERR_INVALID_VALUE;
                if (c->worker_cmd.len == sizeof(domain_id)) {
                	memcpy(&domain_id, c->worker_cmd.plugin_cmd, sizeof(domain_id));
                	status = ctx->domain_iface.addr_lookup(ctx, domain_id, &peer);
                }
                size_t len = status == UROM_SUCCESS ? strlen((const char *)peer) : 0;
                struct urom_worker_notif_desc *n = malloc(sizeof(*n) + len);
                if (n == NULL) { free(c); return UROM_ERR_NO_MEMORY; }
                n->dest_id = c->dest_id;
                n->worker_notif.type = c->worker_cmd.type;
                n->worker_notif.urom_context = c->worker_cmd.urom_context;
                n->worker_notif.len = len;
                n->worker_notif.status = status;
                n->worker_notif.reserved = 0;
                if (len > 0) memcpy(n->worker_notif.plugin_notif, peer, len);""" + source.substring(finish + to.length());
        source = replace(
                source,
                "static urom_status_t echo_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)\n{\n\t(void)ctx;",
                "static urom_status_t echo_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)\n{");
        return NativeFixtures.compilePlugin(dir, "domain_peer.so", source);
    }

    private static String base(String address) {
        return NativeFixtures.minimalPluginSource(1, address);
    }

    private static String replace(String source, String target, String replacement) {
        if (!source.contains(target)) {
            throw new AssertionError("the minimal plugin source no longer contains: " + target);
        }
        return source.replace(target, replacement);
    }
}
