// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli;

import dev.urom.service.daemon.DaemonConfig;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code urom} command line. Every failure reaches the user as one line on stderr, {@code
 * urom <command>: <what went wrong>}, and a non-zero exit status: 1 for a failure, 2 for a usage
 * error (an option or argument that does not parse, or whose value is out of range). A usage error is followed by a second line naming a command that shows the usage, {@code
 * (see: urom <command> --help)}. Every command answers {@code --help} and {@code -h}, and {@code urom
 * help [COMMAND]}, with its usage and exit status 0. Stack traces go to the log only.
 */
@Command(
        name = "urom",
        mixinStandardHelpOptions = true,
        scope = CommandLine.ScopeType.INHERIT,
        versionProvider = Main.Version.class,
        description = "urom-java: the UROM offload service and its plugin framework.",
        subcommands = {
            DaemonCommand.class,
            AddressCommand.class,
            PluginsCommand.class,
            WorkersCommand.class,
            CmdCommand.class,
            LoopbackCommand.class,
            PingPongCommand.class,
            PingPongRankCommand.class,
            ExecCommand.class,
            DemoCommand.class,
            DoctorCommand.class,
            KeygenCommand.class,
            NewPluginCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Main implements Runnable {
    /** Exit status of a command that failed. */
    static final int FAILED = 1;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(
                spec.commandLine(),
                "name a command: " + String.join(", ", spec.subcommands().keySet()));
    }

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("daemon")) {
            // Before Log4j2 starts: the daemon's own shutdown hook stops logging after its last lines.
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
        int status =
                run(args, Environment.system(), new PrintWriter(System.out, true), new PrintWriter(System.err, true));
        exitRequested = true;
        System.exit(status);
    }

    /** Whether {@link #main} has its command's status and is exiting with it (not a signal stopping the process). */
    private static volatile boolean exitRequested;

    static boolean exitRequested() {
        return exitRequested;
    }

    /** Runs one command line in the given environment and streams, and returns its exit status. */
    static int run(String[] args, Environment environment, PrintWriter out, PrintWriter err) {
        args = withServiceArgs(args, environment);
        CommandLine line = commandLine(environment);
        line.setOut(out);
        line.setErr(err);
        line.setExecutionExceptionHandler((ex, cmd, parsed) -> {
            String command = cmd.getCommandName();
            if (ex instanceof CliFailure failure && failure.isUsage()) {
                err.println(qualifiedName(cmd) + ": " + failure.getMessage());
                err.println("(see: " + qualifiedName(cmd) + " --help)");
                return CommandLine.ExitCode.USAGE;
            } else if (ex instanceof CliFailure failure) {
                err.println("urom " + command + ": " + failure.getMessage());
            } else {
                org.apache.logging.log4j.LogManager.getLogger(Main.class).error("urom {} failed", command, ex);
                err.println("urom " + command + ": unexpected failure: " + ex);
            }
            return FAILED;
        });
        line.setParameterExceptionHandler((reported, parsed) -> {
            CommandLine.ParameterException ex = unknownOptionFirst(reported);
            err.println(qualifiedName(ex.getCommandLine()) + ": " + ex.getMessage() + didYouMean(ex));
            err.println("(see: " + qualifiedName(ex.getCommandLine()) + " --help)");
            return CommandLine.ExitCode.USAGE;
        });
        return line.execute(args);
    }

    /** The whole command tree, each command built with {@code environment}; the streams and handlers are the caller's to set. */
    static CommandLine commandLine(Environment environment) {
        CommandLine line = new CommandLine(new Main(), new CommandFactory(environment));
        // An option given twice takes its last value: the command line overrides SERVICE_ARGS.
        line.setOverwrittenOptionsAllowed(true);
        return line;
    }

    /**
     * Picocli checks the required options before it complains of arguments it did not match: an
     * unknown option (often a misspelled required one) is the better report, so it goes first.
     */
    private static CommandLine.ParameterException unknownOptionFirst(CommandLine.ParameterException ex) {
        CommandLine command = ex.getCommandLine();
        if (ex instanceof CommandLine.UnmatchedArgumentException
                || command.getUnmatchedArguments().isEmpty()) {
            return ex;
        }
        return new CommandLine.UnmatchedArgumentException(command, command.getUnmatchedArguments());
    }

    /** For a mistyped command or option, what picocli finds close to it: {@code  (did you mean: daemon?)}; otherwise empty. */
    private static String didYouMean(CommandLine.ParameterException ex) {
        if (ex instanceof CommandLine.UnmatchedArgumentException unmatched
                && !unmatched.getSuggestions().isEmpty()) {
            return " (did you mean: " + String.join(" or ", unmatched.getSuggestions()) + "?)";
        }
        return "";
    }

    /** {@code urom}, or {@code urom <command> [<subcommand>...]}: how the user names {@code command}. */
    static String qualifiedName(CommandLine command) {
        return command.getCommandSpec().qualifiedName();
    }

    /** For {@code urom daemon}, the words of SERVICE_ARGS go before the command-line arguments. */
    private static String[] withServiceArgs(String[] args, Environment environment) {
        if (args.length == 0 || !args[0].equals("daemon") || environment.serviceArgs() == null) {
            return args;
        }
        List<String> rest = DaemonConfig.withServiceArgs(
                environment.serviceArgs(), List.of(args).subList(1, args.length));
        List<String> all = new ArrayList<>(rest.size() + 1);
        all.add("daemon");
        all.addAll(rest);
        return all.toArray(String[]::new);
    }

    /** Builds each command with the environment it is to read. */
    private record CommandFactory(Environment environment) implements CommandLine.IFactory {
        @Override
        public <K> K create(Class<K> type) throws Exception {
            try {
                return type.getDeclaredConstructor(Environment.class).newInstance(environment);
            } catch (NoSuchMethodException noEnvironment) {
                return CommandLine.defaultFactory().create(type);
            }
        }
    }

    /** The version of the distribution, from the jar manifest when there is one. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"urom-java " + (version == null ? "(development build)" : version)};
        }
    }
}
