package dev.urom.bench;

/**
 * What {@link DispatchInstructions} runs under callgrind: {@code DispatchDriver native|java WARM_UP
 * COMMANDS} opens an {@link InProcessDispatch} on that graph plugin, sends {@code WARM_UP} and then
 * {@code COMMANDS} LOOPBACKs one after the other, closes it and prints {@code dispatched N}.
 *
 * <p>Exit status 0, 1 with one line on stderr when the plugin does not open or a LOOPBACK fails, 2
 * on a usage error.
 */
public final class DispatchDriver {
    static final String USAGE = "usage: DispatchDriver native|java WARM_UP COMMANDS";
    static final int MAX_COMMANDS = 100_000_000;

    private DispatchDriver() {}

    public static void main(String[] args) {
        int warmUp;
        int commands;
        try {
            if (args.length != 3) {
                throw new IllegalArgumentException(USAGE);
            }
            warmUp = OptionPairs.count("WARM_UP", args[1], 0, MAX_COMMANDS);
            commands = OptionPairs.count("COMMANDS", args[2], 0, MAX_COMMANDS);
        } catch (IllegalArgumentException e) {
            System.err.println("DispatchDriver: " + e.getMessage());
            System.exit(2);
            return;
        }
        try (InProcessDispatch dispatch = InProcessDispatch.open(args[0])) {
            long data = 0;
            for (long i = 0; i < (long) warmUp + commands; i++) {
                dispatch.loopback(++data);
            }
            System.out.println("dispatched " + data);
        } catch (IllegalStateException | IllegalArgumentException e) {
            System.err.println("DispatchDriver: " + e.getMessage());
            System.exit(1);
        }
    }
}
