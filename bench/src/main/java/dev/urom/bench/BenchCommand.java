// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line of one benchmark program, declared option by option and read by picocli. Not
 * thread-safe: declare one per parse.
 *
 * <p>{@link #parse} throws {@link IllegalArgumentException} with one line:
 *
 * <ul>
 *   <li>an unknown argument: {@code unknown argument 'ARG'; USAGE};
 *   <li>an option without its value: {@code OPTION needs a value; USAGE};
 *   <li>a value its conversion refuses: the conversion's own line, which names the option.
 * </ul>
 *
 * <p>Every option takes one value; one given twice keeps the last, except a {@link #repeatable} one,
 * which keeps them all. Arguments are taken as they are: no {@code @FILE} expansion.
 */
final class BenchCommand {
    private final CommandSpec spec;
    private final String usage;
    private final List<String> optionNames = new ArrayList<>();

    /** A command line named {@code name} whose errors end with {@code usage}. */
    BenchCommand(String name, String usage) {
        this.spec = CommandSpec.create().name(name);
        this.usage = usage;
        spec.parser().overwrittenOptionsAllowed(true).expandAtFiles(false);
    }

    /** {@code option N}: a whole number from {@code min} to {@code max}. */
    BenchCommand count(String option, int min, int max) {
        return option(option, "N", value -> count(option, value, min, max));
    }

    /** {@code option LABEL}: a path. */
    BenchCommand path(String option, String label) {
        return option(option, label, Path::of);
    }

    /** {@code option LABEL}: a word, as it is. */
    BenchCommand text(String option, String label) {
        return option(option, label, Function.identity());
    }

    /**
     * {@code option LABEL}: what {@code conversion} makes of the value; its {@link
     * IllegalArgumentException}'s message is the error line, so it names the option.
     */
    <T> BenchCommand option(String option, String label, Function<String, T> conversion) {
        spec.addOption(OptionSpec.builder(option)
                .paramLabel(label)
                .type(Object.class)
                .converters(converter(conversion))
                .build());
        optionNames.add(option);
        return this;
    }

    /** {@code option LABEL}, as many times as wanted: every value, in order. */
    BenchCommand repeatable(String option, String label) {
        spec.addOption(OptionSpec.builder(option)
                .paramLabel(label)
                .type(List.class)
                .auxiliaryTypes(String.class)
                .build());
        optionNames.add(option);
        return this;
    }

    /** The next positional parameter, {@code label}: what {@code conversion} makes of it. */
    <T> BenchCommand parameter(String label, Function<String, T> conversion) {
        int index = spec.positionalParameters().size();
        spec.addPositional(PositionalParamSpec.builder()
                .index(Integer.toString(index))
                .arity("1")
                .required(true)
                .paramLabel(label)
                .type(Object.class)
                .converters(converter(conversion))
                .build());
        return this;
    }

    /** The options declared, in order. */
    List<String> optionNames() {
        return List.copyOf(optionNames);
    }

    /** Reads {@code args}: what each option and parameter was given. */
    Parsed parse(List<String> args) {
        try {
            return new Parsed(new CommandLine(spec).parseArgs(args.toArray(String[]::new)));
        } catch (CommandLine.UnmatchedArgumentException e) {
            throw new IllegalArgumentException(
                    "unknown argument '" + e.getUnmatched().get(0) + "'; " + usage);
        } catch (CommandLine.MissingParameterException e) {
            throw new IllegalArgumentException(name(e.getMissing().get(0)) + " needs a value; " + usage);
        } catch (CommandLine.ParameterException e) {
            if (e.getCause() instanceof TypeConversionException refused) {
                throw new IllegalArgumentException(refused.getMessage());
            }
            throw new IllegalArgumentException(e.getMessage() + "; " + usage);
        }
    }

    /** {@code value} as a whole number from {@code min} to {@code max}; else one line naming {@code option}. */
    static int count(String option, String value, int min, int max) {
        try {
            int number = Integer.parseInt(value);
            if (number >= min && number <= max) {
                return number;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(
                option + " '" + value + "' is not a whole number from " + min + " to " + max);
    }

    private static String name(ArgSpec arg) {
        return arg instanceof OptionSpec option ? option.longestName() : arg.paramLabel();
    }

    private static <T> CommandLine.ITypeConverter<Object> converter(Function<String, T> conversion) {
        return value -> {
            try {
                return conversion.apply(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        };
    }

    /** What one command line gave: each option's or parameter's value, or null (empty for a repeatable option) when not given. */
    static final class Parsed {
        private final CommandLine.ParseResult result;

        private Parsed(CommandLine.ParseResult result) {
            this.result = result;
        }

        /** Whether {@code option} was given. */
        boolean has(String option) {
            return result.hasMatchedOption(option);
        }

        /** {@code option}'s value, or {@code otherwise} when it was not given. */
        <T> T get(String option, T otherwise) {
            return result.matchedOptionValue(option, otherwise);
        }

        /** Every value of the repeatable {@code option}, in order. */
        List<String> all(String option) {
            return List.copyOf(result.matchedOptionValue(option, List.<String>of()));
        }

        /** The positional parameter {@code index} (from 0). */
        <T> T parameter(int index) {
            return result.matchedPositionalValue(index, null);
        }
    }
}
