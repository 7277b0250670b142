// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

/** Runs the command line in this process and captures what it prints. For tests. */
public final class CliRunner {
    private CliRunner() {}

    /** What one run printed, and its exit status. */
    public record Run(int status, String out, String err) {
        public List<String> errLines() {
            return err.isEmpty() ? List.of() : List.of(err.split("\n"));
        }
    }

    /** Runs {@code urom ARGS...} with this UROM_PLUGIN_PATH (null: unset). */
    public static Run run(String pluginPath, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int status =
                Main.run(args, new Environment(pluginPath), new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(status, out.toString(), err.toString());
    }
}
