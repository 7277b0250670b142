// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/cli.md is what {@link CliReference} makes of the commands now: one row per option of every
 * command. With {@code -Durom.cli.reference.update=true} the test rewrites the page instead.
 */
class CliReferenceTest {
    private static final Path PAGE =
            Path.of(System.getProperty("urom.repo", "..")).resolve("docs/cli.md");

    @Test
    void docsCliMdIsTheGeneratedReference() throws IOException {
        String generated = CliReference.markdown();
        if (Boolean.getBoolean("urom.cli.reference.update")) {
            Files.writeString(PAGE, generated, StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(PAGE))
                .as("%s is missing; write it: %s", PAGE, CliReference.UPDATE_COMMAND)
                .isTrue();
        assertThat(Files.readString(PAGE))
                .as("docs/cli.md differs from the commands' definitions; rewrite it: %s", CliReference.UPDATE_COMMAND)
                .isEqualTo(generated);
    }

    @Test
    void everyOptionOfEveryCommandHasItsRowWithADescription() {
        String page = CliReference.markdown();
        picocli.CommandLine root = Main.commandLine(new Environment(null));
        int rows = 0;
        for (picocli.CommandLine command : root.getSubcommands().values()) {
            if (command.getCommandSpec().helpCommand()) {
                continue;
            }
            String heading = "\n## urom " + command.getCommandName() + "\n";
            assertThat(page).contains(heading);
            String section =
                    page.substring(page.indexOf(heading) + heading.length()).split("\n## ", 2)[0];
            for (picocli.CommandLine.Model.OptionSpec option :
                    command.getCommandSpec().options()) {
                if (option.usageHelp() || option.versionHelp()) {
                    continue;
                }
                assertThat(String.join(" ", option.description()))
                        .as("the description of %s %s", command.getCommandName(), option.longestName())
                        .isNotBlank();
                assertThat(section.lines()
                                .filter(row -> row.startsWith("| ") && row.contains("`" + option.longestName() + "`")))
                        .as("the row of %s %s", command.getCommandName(), option.longestName())
                        .hasSize(1);
                rows++;
            }
        }
        assertThat(rows).isGreaterThan(50);
    }

    @Test
    void theDaemonsDefaultsAreInTheirColumn() {
        String page = CliReference.markdown();

        assertThat(page)
                .contains(
                        "| `-m`, `--max-msg-size` | `BYTES` | 4096 | Largest command or notification in bytes, its 24-byte header included, 88 to 16777216 ")
                .contains("| `--http-host` | `HOST` | 127.0.0.1 | Address the HTTP endpoint binds (default: 127.0.0.1;")
                .contains("| `--insecure-tcp` |  | off | ")
                .contains("| `--log-file-count` | `N` | 5 | ")
                .contains("| `--rank` (required) | `N` | - | ")
                .contains("| `--plugin` (required) | `NAME\\|ID` | - | ");
    }
}
