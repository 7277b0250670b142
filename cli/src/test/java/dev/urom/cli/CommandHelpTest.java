// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every command of the picocli model, walked from {@link Main#commandLine}, so that a command added
 * later is covered too: its help, and the usage errors that point the user at that help.
 */
class CommandHelpTest {
    private static final Pattern SEE = Pattern.compile("\\(see: urom ([^)]*)\\)");

    @TempDir
    Path plugins;

    /** Every command and subcommand, as the words that name it after {@code urom}. */
    private static List<List<String>> allCommands() {
        List<List<String>> names = new ArrayList<>();
        collect(Main.commandLine(new Environment(null)), List.of(), names);
        return names;
    }

    private static void collect(CommandLine line, List<String> path, List<List<String>> into) {
        line.getSubcommands().forEach((name, sub) -> {
            List<String> words = new ArrayList<>(path);
            words.add(name);
            into.add(words);
            collect(sub, words, into);
        });
    }

    private CliRunner.Run run(List<String> words, String... more) {
        List<String> args = new ArrayList<>(words);
        args.addAll(List.of(more));
        return CliRunner.run(plugins.toString(), args.toArray(String[]::new));
    }

    @Test
    void theWalkFindsEveryRegisteredCommand() {
        assertThat(allCommands())
                .extracting(words -> String.join(" ", words))
                .contains(
                        "daemon",
                        "address",
                        "plugins",
                        "workers",
                        "cmd",
                        "loopback",
                        "ping-pong",
                        "ping-pong-rank",
                        "exec",
                        "demo",
                        "doctor",
                        "keygen",
                        "help");
    }

    @Test
    void everyCommandAnswersLongAndShortHelpWithItsUsageAndExitZero() {
        for (List<String> command : allCommands()) {
            String usage = "Usage: urom " + String.join(" ", command) + " ";
            for (String flag : List.of("--help", "-h")) {
                CliRunner.Run help = run(command, flag);

                assertThat(help.status())
                        .as(command + " " + flag + ": " + help.err())
                        .isZero();
                assertThat(help.out())
                        .as(command + " " + flag)
                        .satisfiesAnyOf(
                                out -> assertThat(out).startsWith(usage),
                                out -> assertThat(out).contains("\n" + usage));
                assertThat(help.err()).as(command + " " + flag).isEmpty();
            }
        }
    }

    @Test
    void helpNamesEveryTopLevelCommandAndShowsEachOnesUsage() {
        CliRunner.Run all = run(List.of("help"));
        assertThat(all.status()).as(all.err()).isZero();
        assertThat(all.out()).startsWith("Usage: urom");

        for (List<String> command : allCommands()) {
            assertThat(all.out()).contains(command.get(0));
            CliRunner.Run help = run(List.of("help"), command.toArray(String[]::new));

            assertThat(help.status()).as("help " + command + ": " + help.err()).isZero();
            assertThat(help.out()).as("help " + command).contains("Usage: urom " + String.join(" ", command) + " ");
        }
    }

    @Test
    void anUnknownOptionIsOneLinePlusASuggestedCommandThatWorks() {
        for (List<String> command : allCommands()) {
            if (spec(command).helpCommand()) {
                continue; // picocli's help command answers anything it does not know with the overall help, exit 0
            }
            CliRunner.Run wrong = run(command, "--no-such-option");

            assertThat(wrong.status()).as(command + ": " + wrong.out()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(wrong.errLines()).as(command.toString()).hasSize(2);
            assertThat(wrong.errLines().get(0))
                    .startsWith("urom " + String.join(" ", command) + ": ")
                    .contains("--no-such-option");
            assertSuggestionWorks(wrong, String.join(" ", command) + " --help");
        }
    }

    @Test
    void aMissingRequiredOptionIsOneLinePlusASuggestedCommandThatWorks() {
        int checked = 0;
        for (List<String> command : allCommands()) {
            if (!hasRequiredArguments(spec(command))) {
                continue;
            }
            checked++;
            CliRunner.Run missing = run(command);

            assertThat(missing.status()).as(command + ": " + missing.out()).isEqualTo(CommandLine.ExitCode.USAGE);
            assertThat(missing.errLines()).as(command.toString()).hasSize(2);
            assertThat(missing.errLines().get(0))
                    .startsWith("urom " + String.join(" ", command) + ": ")
                    .containsIgnoringCase("missing");
            assertSuggestionWorks(missing, String.join(" ", command) + " --help");
        }
        // cmd, exec, loopback, ping-pong, ping-pong-rank and keygen need some; plugins and workers find the daemon
        // without --service
        assertThat(checked).isGreaterThanOrEqualTo(6);
    }

    @Test
    void anUnknownCommandIsOneLineWithAGuessPlusASuggestedCommandThatWorks() {
        CliRunner.Run wrong = run(List.of("deamon"));

        assertThat(wrong.status()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(wrong.errLines()).hasSize(2);
        assertThat(wrong.errLines().get(0))
                .startsWith("urom: ")
                .contains("'deamon'")
                .contains("did you mean: ")
                .contains("daemon");
        assertSuggestionWorks(wrong, "--help");
    }

    @Test
    void noCommandAtAllNamesEveryCommand() {
        CliRunner.Run none = run(List.of());

        assertThat(none.status()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(none.errLines()).hasSize(2);
        for (List<String> command : allCommands()) {
            assertThat(none.errLines().get(0)).contains(command.get(0));
        }
        assertSuggestionWorks(none, "--help");
    }

    @Test
    void helpOfAnUnknownCommandIsAUsageErrorWhoseSuggestionWorks() {
        CliRunner.Run wrong = run(List.of("help", "nosuch"));

        assertThat(wrong.status()).isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(wrong.errLines()).hasSize(2);
        assertThat(wrong.errLines().get(0)).startsWith("urom: ").contains("'nosuch'");
        assertSuggestionWorks(wrong, "--help");
    }

    /** The second line of a usage error names a command; that command runs, exits 0 and prints a usage. */
    private void assertSuggestionWorks(CliRunner.Run failed, String expected) {
        Matcher see = SEE.matcher(failed.errLines().get(1));
        assertThat(see.matches()).as(failed.errLines().get(1)).isTrue();
        assertThat(see.group(1)).isEqualTo(expected);

        CliRunner.Run suggested = CliRunner.run(plugins.toString(), see.group(1).split(" "));

        assertThat(suggested.status()).as(see.group(1) + ": " + suggested.err()).isZero();
        assertThat(suggested.out()).startsWith("Usage: urom " + expected.replace("--help", ""));
    }

    private static CommandSpec spec(List<String> command) {
        CommandLine line = Main.commandLine(new Environment(null));
        for (String word : command) {
            line = line.getSubcommands().get(word);
        }
        return line.getCommandSpec();
    }

    private static boolean hasRequiredArguments(CommandSpec spec) {
        return !spec.requiredArgs().isEmpty()
                || spec.argGroups().stream()
                        .anyMatch(group -> group.multiplicity().min() > 0);
    }
}
