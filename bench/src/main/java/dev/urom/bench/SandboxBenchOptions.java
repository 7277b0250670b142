package dev.urom.bench;

import java.nio.file.Path;
import java.util.List;

/**
 * The command line of {@link SandboxBench}: {@code [--json FILE] [--rounds N] [--messages N] [--regions N]}.
 *
 * @param json where to write the JSON document, or null for none
 * @param rounds ping-pong round trips measured per plugin (after as many to warm up)
 * @param messages inline messages measured per plugin for the inline bandwidth (after a tenth as many)
 * @param regions 1 MiB region messages measured per plugin for the MEM_MAP bandwidth (after a tenth as many)
 */
record SandboxBenchOptions(Path json, int rounds, int messages, int regions) {
    static final int DEFAULT_ROUNDS = 5_000;
    static final int DEFAULT_MESSAGES = 20_000;
    static final int DEFAULT_REGIONS = 500;
    static final int MAX_COUNT = 10_000_000;
    static final String USAGE = "usage: SandboxBench [--json FILE] [--rounds N (default " + DEFAULT_ROUNDS + ")] [--messages N (default "
            + DEFAULT_MESSAGES + ")] [--regions N (default " + DEFAULT_REGIONS + ")]";

    /** Unmeasured messages sent before {@code measured} ones. */
    static int warmUp(int measured) {
        return Math.max(1, measured / 10);
    }

    /** Parses {@code args}; throws {@link IllegalArgumentException} with one line naming the option and the reason. */
    static SandboxBenchOptions parse(List<String> args) {
        Path json = null;
        int rounds = DEFAULT_ROUNDS;
        int messages = DEFAULT_MESSAGES;
        int regions = DEFAULT_REGIONS;
        for (int i = 0; i < args.size(); i++) {
            String option = args.get(i);
            if (!List.of("--json", "--rounds", "--messages", "--regions").contains(option)) {
                throw new IllegalArgumentException("unknown argument '" + option + "'; " + USAGE);
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(option + " needs a value; " + USAGE);
            }
            String value = args.get(++i);
            switch (option) {
                case "--json" -> json = Path.of(value);
                case "--rounds" -> rounds = count(option, value);
                case "--messages" -> messages = count(option, value);
                default -> regions = count(option, value);
            }
        }
        return new SandboxBenchOptions(json, rounds, messages, regions);
    }

    private static int count(String option, String value) {
        try {
            int number = Integer.parseInt(value);
            if (number >= 1 && number <= MAX_COUNT) {
                return number;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(option + " '" + value + "' is not a whole number from 1 to " + MAX_COUNT);
    }
}
