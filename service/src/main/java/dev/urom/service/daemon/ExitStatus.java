// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import java.util.Optional;

/**
 * Words for how a process ended, from {@link Process#exitValue()}: the JDK reports a process
 * killed by signal N as 128 + N, so values from 129 to 192 are read as signals (a process that
 * itself exits with such a value reads the same). Stateless.
 */
final class ExitStatus {
    private static final String[] SIGNALS = {
        null,
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS"
    };

    private ExitStatus() {}

    /** "exited with status 0", or "was killed by signal 11 (SIGSEGV)". */
    static String describe(int exitValue) {
        return signalName(exitValue)
                .map(name -> "was killed by signal " + (exitValue - 128) + " (" + name + ")")
                .orElse("exited with status " + exitValue);
    }

    /** The name of the signal that killed the process ("SIGKILL"), or empty when it exited. */
    static Optional<String> signalName(int exitValue) {
        int signal = exitValue - 128;
        if (signal < 1 || signal > 64) {
            return Optional.empty();
        }
        return Optional.of(
                signal < SIGNALS.length
                        ? SIGNALS[signal]
                        : signal >= 34 ? "SIGRTMIN+" + (signal - 34) : "SIG" + signal);
    }
}
