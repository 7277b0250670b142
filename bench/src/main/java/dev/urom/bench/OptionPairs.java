// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.List;
import java.util.function.BiConsumer;

/**
 * The command lines of the benchmark mains: {@code --option value} pairs only. Errors are one line
 * naming the option and the reason, ending with the usage where it helps. Stateless.
 */
final class OptionPairs {
    private OptionPairs() {}

    /**
     * Hands each {@code --option value} pair of {@code args}, in order, to {@code handler}.
     *
     * @throws IllegalArgumentException at the first argument that is not one of {@code options}, an
     *     option without a value, or whatever {@code handler} throws
     */
    static void parse(List<String> args, List<String> options, String usage, BiConsumer<String, String> handler) {
        for (int i = 0; i < args.size(); i++) {
            String option = args.get(i);
            if (!options.contains(option)) {
                throw new IllegalArgumentException("unknown argument '" + option + "'; " + usage);
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(option + " needs a value; " + usage);
            }
            handler.accept(option, args.get(++i));
        }
    }

    /** {@code value} as a whole number from {@code min} to {@code max}. */
    static int count(String option, String value, int min, int max) {
        try {
            int number = Integer.parseInt(value);
            if (number >= min && number <= max) {
                return number;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw new IllegalArgumentException(option + " '" + value + "' is not a whole number from " + min + " to " + max);
    }
}
