package dev.urom.service.worker;

import dev.urom.nativebridge.testkit.NativeFixtures;
import java.nio.file.Path;

/** Native plugins for the worker tests, compiled with {@code cc} from variants of the minimal echo plugin. */
final class WorkerFixtures {
    private static final String OPEN = "static urom_status_t echo_open(struct urom_worker_ctx *ctx) { ctx->plugin_ctx = NULL; return UROM_SUCCESS; }";
    private static final String CMD = "static urom_status_t echo_cmd(struct urom_worker_ctx *ctx, urom_list_link_t *cmds)\n{";

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
        String source = replace(base("refusing"), OPEN,
                "static urom_status_t echo_open(struct urom_worker_ctx *ctx) { (void)ctx; return UROM_ERR_NOT_PERMITTED; }");
        return NativeFixtures.compilePlugin(dir, "refusing.so", source);
    }

    /** A plugin whose worker_cmd writes through a null pointer. */
    static Path crashing(Path dir) {
        String source = replace(base("crashing"), CMD, CMD + "\n\t*(volatile int *)0 = 1;");
        return NativeFixtures.compilePlugin(dir, "crashing.so", source);
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
