// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import java.util.List;
import java.util.function.Function;

/**
 * What {@link DispatchInstructions} runs under callgrind: {@code DispatchDriver native|java WARM_UP
 * COMMANDS} opens an {@link InProcessDispatch} on that graph plugin, sends {@code WARM_UP} LOOPBACKs
 * and then, inside a {@link CallgrindWindow}, {@code COMMANDS} more, one after the other, closes it
 * and prints {@code dispatched N}. Only the window is instrumented, and its dump holds the counts
 * of this (the main) thread alone.
 *
 * <p>Exit status 0, 1 with one line on stderr when the plugin or {@code libcallgrind_window.so} does not open or a LOOPBACK fails, 2
 * on a usage error.
 */
public final class DispatchDriver {
    static final String USAGE = "usage: DispatchDriver native|java WARM_UP COMMANDS";
    static final int MAX_COMMANDS = 100_000_000;

    /**
     * The warm-up calls {@link #send} many times with this many commands, so that the JIT compiles
     * it as a method (not only its loop, on stack), the code the window then runs.
     */
    private static final int WARM_UP_BATCH = 100;

    private DispatchDriver() {}

    /** Sends {@code count} LOOPBACKs, the first of data {@code data + 1}; answers the last data sent. */
    private static long send(InProcessDispatch dispatch, long data, int count) {
        for (int i = 0; i < count; i++) {
            dispatch.loopback(++data);
        }
        return data;
    }

    public static void main(String[] args) {
        String kind;
        int warmUp;
        int commands;
        try {
            BenchCommand.Parsed line = new BenchCommand("DispatchDriver", USAGE)
                    .parameter("native|java", Function.identity())
                    .parameter("WARM_UP", value -> BenchCommand.count("WARM_UP", value, 0, MAX_COMMANDS))
                    .parameter("COMMANDS", value -> BenchCommand.count("COMMANDS", value, 0, MAX_COMMANDS))
                    .parse(List.of(args));
            kind = line.parameter(0);
            warmUp = line.parameter(1);
            commands = line.parameter(2);
        } catch (IllegalArgumentException e) {
            System.err.println("DispatchDriver: " + e.getMessage());
            System.exit(2);
            return;
        }
        try (InProcessDispatch dispatch = InProcessDispatch.open(kind)) {
            CallgrindWindow.register();
            long data = 0;
            for (int sent = 0; sent < warmUp; sent += WARM_UP_BATCH) {
                data = send(dispatch, data, Math.min(WARM_UP_BATCH, warmUp - sent));
            }
            CallgrindWindow.open();
            data = send(dispatch, data, commands);
            CallgrindWindow.close();
            System.out.println("dispatched " + data);
        } catch (IllegalStateException | IllegalArgumentException e) {
            System.err.println("DispatchDriver: " + e.getMessage());
            System.exit(1);
        }
    }
}
