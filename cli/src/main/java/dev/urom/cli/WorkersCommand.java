package dev.urom.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.urom.host.UromService;
import dev.urom.wire.Protocol;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code urom workers --service ADDR [--gid G] [--json]}: the running workers, or those of one group. */
@Command(name = "workers", description = "List the running workers of a daemon, or those in group --gid.")
final class WorkersCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Mixin ServiceOptions service;

    @Option(names = "--gid", paramLabel = "G", description = "Only the workers of this group id.")
    Long gid;

    @Option(names = "--json", description = "Print one JSON document: {\"gid\": G or null, \"workers\": [ids]}.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<Long> workers;
        try (UromService connection = service.connect()) {
            workers = connection.workersInGroup(gid == null ? Protocol.ALL_GROUPS : gid);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectMapper mapper = new ObjectMapper();
            ObjectNode root = mapper.createObjectNode();
            if (gid == null) {
                root.putNull("gid");
            } else {
                root.put("gid", PluginsCommand.unsigned(gid));
            }
            ArrayNode ids = root.putArray("workers");
            workers.forEach(id -> ids.add(PluginsCommand.unsigned(id)));
            out.println(mapper.writeValueAsString(root));
        } else if (workers.isEmpty()) {
            out.println(gid == null ? "(no workers)" : "(no workers in gid " + Long.toUnsignedString(gid) + ")");
        } else {
            workers.forEach(id -> out.println(Long.toUnsignedString(id)));
        }
        return 0;
    }
}
