package dev.urom.service.daemon;

/**
 * Words for how a process ended, from {@link Process#exitValue()}: the JDK reports a process
 * killed by signal N as 128 + N, so values from 129 to 192 are read as signals (a process that
 * itself exits with such a value reads the same). Stateless.
 */
final class ExitStatus {
    private static final String[] SIGNALS = {
        null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1",
        "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP",
        "SIGTTIN", "SIGTTOU", "SIGURG", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"
    };

    private ExitStatus() {}

    /** "exited with status 0", or "was killed by signal 11 (SIGSEGV)". */
    static String describe(int exitValue) {
        int signal = exitValue - 128;
        if (signal >= 1 && signal <= 64) {
            String name = signal < SIGNALS.length ? SIGNALS[signal] : signal >= 34 ? "SIGRTMIN+" + (signal - 34) : "SIG" + signal;
            return "was killed by signal " + signal + " (" + name + ")";
        }
        return "exited with status " + exitValue;
    }
}
