package dev.urom.service.daemon;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Stands in for a worker that never answers the daemon's {@code STATS} requests: it prints {@code
 * READY <its --listen value>}, keeps its stdout open, reads and ignores its stdin, and exits 0 at
 * EOF (when the daemon ends it).
 */
public final class MuteWorkerMain {
    private MuteWorkerMain() {}

    public static void main(String[] args) throws IOException {
        int listen = List.of(args).indexOf("--listen");
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        out.println("READY " + args[listen + 1]);
        while (System.in.read() >= 0) {
            // a STATS line, left unanswered
        }
        System.exit(0);
    }
}
