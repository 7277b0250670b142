// SPDX-License-Identifier: Apache-2.0
package dev.urom.bench;

import dev.urom.auth.AuthKey;
import dev.urom.host.UromService;
import dev.urom.service.daemon.Daemon;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.spi.UromException;
import dev.urom.wire.ServiceAddress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What proving a key costs a host: each operation opens a control connection to a daemon in this
 * process over its Unix socket, runs the handshake and closes it. {@code unix}: the host claims no
 * key and is the Unix user the kernel names (HELLO, HELLO_OK); {@code key}: it proves a key
 * (HELLO, CHALLENGE, PROOF, HELLO_OK with the daemon's proof; four HMAC-SHA256 and a read of the
 * key file at the daemon). The ratio of the two in one run is the cost of the proof per connection;
 * commands never pay it again.
 *
 * <p>The module's one JMH benchmark: {@code java -jar bench/target/benchmarks.jar HandshakeBench}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class HandshakeBench {
    @Param({"unix", "key"})
    public String host;

    private RunFolder run;
    private Daemon daemon;
    private String address;
    private Optional<AuthKey> key;

    @Setup(Level.Trial)
    public void startDaemon() throws IOException, UromException {
        run = new RunFolder("urom-handshake-bench");
        Path keys = Files.createDirectory(
                run.path().resolve("keys"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        AuthKey generated = AuthKey.generate(keys.resolve("bench.key"));
        daemon = Daemon.start(Daemon.configureLogging(DaemonConfig.builder()
                .listen(ServiceAddress.unix(run.path().resolve("daemon").resolve("daemon.sock")))
                .logDir(run.path().resolve("log"))
                .pluginPath("")
                .security(DaemonSecurity.builder().authKeys(keys).build())
                .build()));
        address = daemon.address().toString();
        key = host.equals("key") ? Optional.of(generated) : Optional.empty();
    }

    @TearDown(Level.Trial)
    public void stopDaemon() {
        daemon.close();
        run.close();
    }

    @Benchmark
    public int connect() throws UromException {
        try (UromService service = UromService.connect(address, key)) {
            return service.maxMessageSize();
        }
    }
}
