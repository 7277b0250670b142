// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.urom.host.UromService;
import dev.urom.host.WorkerInfo;
import dev.urom.spi.UromException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code urom workers --service ADDR [--gid G] [--json]}: the caller's workers (a worker belongs to
 * the principal that started it), or those of one group, as the daemon describes them (WORKERS_INFO):
 * id, gid, state, plugins, pid, uptime and the commands served. A table with one header row, or
 * with {@code --json} an array of objects. A worker lives as long as a host holds a connection to
 * it, so the workers of an earlier {@code urom cmd} or {@code urom loopback} have ended by then.
 */
@Command(
        name = "workers",
        description =
                "List your running workers of a daemon (or those in group --gid): id, gid, state, plugins, pid, uptime, commands.")
final class WorkersCommand implements Callable<Integer> {
    static final List<String> COLUMNS = List.of("ID", "GID", "STATE", "PLUGINS", "PID", "UPTIME", "COMMANDS");

    @Spec
    CommandSpec spec;

    @Mixin
    ServiceOptions service;

    @Option(
            names = "--gid",
            paramLabel = "G",
            converter = UnsignedValue.Converter.class,
            description = "Only the workers of this group id (unsigned decimal or 0x hex).")
    UnsignedValue gid;

    @Option(
            names = "--json",
            description = "Print a JSON array: one object per worker, "
                    + "{\"id\", \"gid\", \"state\", \"plugins\", \"pid\", \"uptime_ms\", \"commands\"}.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<WorkerInfo> workers;
        try (UromService connection = service.connect()) {
            workers = connection.workersInfo(gid == null ? UromService.ALL_GROUPS : gid.bits());
        } catch (UromException e) {
            throw new CliFailure("listing the workers of " + service.address() + ": " + e.getMessage());
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(json(workers));
        } else if (workers.isEmpty()) {
            out.println(gid == null ? "(no workers)" : "(no workers in gid " + Long.toUnsignedString(gid.bits()) + ")");
        } else {
            table(workers).forEach(out::println);
        }
        return 0;
    }

    static String json(List<WorkerInfo> workers) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        ArrayNode array = mapper.createArrayNode();
        for (WorkerInfo worker : workers) {
            ObjectNode node = array.addObject();
            node.put("id", PluginsCommand.unsigned(worker.id()));
            node.put("gid", PluginsCommand.unsigned(worker.gid()));
            node.put("state", worker.state().name().toLowerCase(Locale.ROOT));
            ArrayNode plugins = node.putArray("plugins");
            worker.plugins().forEach(plugins::add);
            if (worker.pid() < 0) {
                node.putNull("pid");
            } else {
                node.put("pid", worker.pid());
            }
            node.put("uptime_ms", worker.uptimeMillis());
            node.put("commands", PluginsCommand.unsigned(worker.commandsServed()));
        }
        return mapper.writeValueAsString(array);
    }

    /** The header row and one row per worker, each column as wide as its widest cell, two spaces apart. */
    static List<String> table(List<WorkerInfo> workers) {
        List<List<String>> rows = new ArrayList<>();
        rows.add(COLUMNS);
        for (WorkerInfo worker : workers) {
            rows.add(List.of(
                    Long.toUnsignedString(worker.id()),
                    Long.toUnsignedString(worker.gid()),
                    worker.state().name().toLowerCase(Locale.ROOT),
                    worker.plugins().isEmpty() ? "-" : String.join(",", worker.plugins()),
                    worker.pid() < 0 ? "-" : Long.toString(worker.pid()),
                    uptime(Duration.ofMillis(worker.uptimeMillis())),
                    Long.toUnsignedString(worker.commandsServed())));
        }
        int[] widths = new int[COLUMNS.size()];
        for (List<String> row : rows) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        List<String> lines = new ArrayList<>();
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                line.append(i == 0 ? "" : "  ").append(i == row.size() - 1 ? row.get(i) : pad(row.get(i), widths[i]));
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /** {@code 42s}, {@code 3m05s}, {@code 2h07m}, {@code 3d04h}. */
    static String uptime(Duration d) {
        long s = d.toSeconds();
        if (s < 60) {
            return s + "s";
        }
        if (s < 3600) {
            return String.format("%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
        }
        return String.format("%dd%02dh", s / 86_400, s % 86_400 / 3600);
    }

    private static String pad(String cell, int width) {
        return cell + " ".repeat(width - cell.length());
    }
}
