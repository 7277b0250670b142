// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.urom.framework.discovery.DefaultCandidateProber;
import dev.urom.framework.discovery.DiscoveredPlugin;
import dev.urom.framework.discovery.PluginDiscovery;
import dev.urom.framework.discovery.PluginIdRegistry;
import dev.urom.framework.discovery.PluginScanner;
import dev.urom.framework.discovery.Rejection;
import dev.urom.framework.discovery.ScanPolicy;
import dev.urom.framework.discovery.ScanResult;
import dev.urom.host.Plugin;
import dev.urom.host.UromService;
import dev.urom.spi.PluginInfo;
import java.io.PrintWriter;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code urom plugins --scan [--json] [--allow-insecure-plugin-dirs]}: what a scan of
 * UROM_PLUGIN_PATH in this process finds (with the daemon's default trust rules unless insecure
 * directories are allowed); {@code urom plugins [--service ADDR] [--json]}: what a running daemon
 * reports, the daemon at its default address when no {@code --service} is given.
 */
@Command(
        name = "plugins",
        description =
                "List the plugins that a running daemon reports (the default, or --service), or that a scan of UROM_PLUGIN_PATH finds (--scan).")
final class PluginsCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    Source source;

    static final class Source {
        @Option(names = "--scan", required = true, description = "Scan UROM_PLUGIN_PATH in this process.")
        boolean scan;

        @Option(
                names = "--service",
                required = true,
                paramLabel = "ADDR",
                description = ServiceOptions.SERVICE_DESCRIPTION)
        String service;
    }

    @Option(names = "--json", description = "Print one JSON document with 'plugins' and 'rejected' arrays.")
    boolean json;

    @Option(
            names = "--allow-insecure-plugin-dirs",
            description =
                    "With --scan: probe plugins in directories or files that others than root and this user could write, with a warning, instead of rejecting them (for development).")
    boolean allowInsecure;

    @Option(
            names = "--auth-key-file",
            paramLabel = "FILE",
            description =
                    "When asking a daemon: the key file to prove (default: the one UROM_AUTH_KEY_FILE names, if set).")
    Path authKeyFile;

    private final Environment environment;

    PluginsCommand(Environment environment) {
        this.environment = environment;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (source == null || !source.scan) {
            if (allowInsecure) {
                throw new ParameterException(
                        spec.commandLine(), "--allow-insecure-plugin-dirs goes with --scan, not --service");
            }
            return listFromService(out);
        }
        if (authKeyFile != null) {
            throw new ParameterException(spec.commandLine(), "--auth-key-file goes with --service, not --scan");
        }
        PluginScanner scanner = new PluginScanner(
                new DefaultCandidateProber(), ScanPolicy.secure().withAllowInsecure(allowInsecure));
        ScanResult result = new PluginDiscovery(scanner, new PluginIdRegistry()).scan(environment.requirePluginPath());
        if (json) {
            out.println(toJson(result));
        } else {
            printTable(result, out);
        }
        return 0;
    }

    private int listFromService(PrintWriter out) throws Exception {
        ServiceOptions options = new ServiceOptions();
        options.address = source == null ? null : source.service;
        options.authKeyFile = authKeyFile;
        List<Plugin> plugins;
        try (UromService service = options.connect()) {
            plugins = service.plugins();
        }
        if (json) {
            ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
            ObjectNode root = mapper.createObjectNode();
            ArrayNode array = root.putArray("plugins");
            for (Plugin plugin : plugins) {
                plugin(array, plugin.info(), plugin.kind());
            }
            out.println(mapper.writeValueAsString(root));
            return 0;
        }
        out.printf("%-18s  %-7s  %-6s  %s%n", "ID", "VERSION", "KIND", "NAME");
        for (Plugin plugin : plugins) {
            out.printf(
                    "0x%016x  %-7s  %-6s  %s%n",
                    plugin.info().id(),
                    Long.toUnsignedString(plugin.info().version()),
                    plugin.kind(),
                    plugin.info().name());
        }
        if (plugins.isEmpty()) {
            out.println("(no plugins)");
        }
        return 0;
    }

    static String toJson(ScanResult result) throws Exception {
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        ArrayNode plugins = root.putArray("plugins");
        for (DiscoveredPlugin plugin : result.plugins()) {
            plugin(plugins, plugin.info(), kind(plugin))
                    .put("path", plugin.path().toString());
        }
        ArrayNode rejected = root.putArray("rejected");
        for (Rejection rejection : result.rejected()) {
            rejected.addObject().put("path", rejection.path().toString()).put("reason", rejection.reason());
        }
        return mapper.writeValueAsString(root);
    }

    /** One plugin of a JSON list: id, version (unsigned), name, kind. */
    private static ObjectNode plugin(ArrayNode list, PluginInfo info, String kind) {
        return list.addObject()
                .put("id", unsigned(info.id()))
                .put("version", unsigned(info.version()))
                .put("name", info.name())
                .put("kind", kind);
    }

    private static void printTable(ScanResult result, PrintWriter out) {
        out.printf("%-18s  %-7s  %-6s  %-24s  %s%n", "ID", "VERSION", "KIND", "NAME", "PATH");
        for (DiscoveredPlugin plugin : result.plugins()) {
            out.printf(
                    "0x%016x  %-7s  %-6s  %-24s  %s%n",
                    plugin.info().id(),
                    Long.toUnsignedString(plugin.info().version()),
                    kind(plugin),
                    plugin.info().name(),
                    plugin.path());
        }
        if (result.plugins().isEmpty()) {
            out.println("(no plugins)");
        }
        if (!result.rejected().isEmpty()) {
            out.println();
            out.println("Rejected:");
            for (Rejection rejection : result.rejected()) {
                out.println("  " + rejection.reason());
            }
        }
        for (String warning : result.warnings()) {
            out.println("warning: " + warning);
        }
    }

    static String kind(DiscoveredPlugin plugin) {
        return plugin.kind().label();
    }

    static BigInteger unsigned(long value) {
        return new BigInteger(Long.toUnsignedString(value));
    }
}
