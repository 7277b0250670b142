// SPDX-License-Identifier: Apache-2.0
package dev.urom.plugins.coll;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import dev.urom.plugins.coll.protocol.CollCommand;
import dev.urom.plugins.coll.protocol.CollNotification;
import dev.urom.plugins.coll.protocol.CollProtocolException;
import dev.urom.plugins.coll.protocol.CollType;
import dev.urom.plugins.coll.protocol.DataType;
import dev.urom.plugins.coll.protocol.Reason;
import dev.urom.plugins.coll.protocol.ReduceOp;
import dev.urom.spi.WorkerCommand;
import dev.urom.testkit.PluginTestKit;
import dev.urom.testkit.TestDomain;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The packaged {@code worker_coll_java.jar}, loaded in class loaders of its own as a worker loads
 * it (Plugin-Class, the bundled UCX binding and protocol): three ranks create a team and
 * allreduce.
 */
class JavaCollJarIT {
    @Test
    void thePackagedJarRunsATeam() throws CollProtocolException {
        Path built = Path.of(System.getProperty("urom.coll.jar", "target/worker_coll_java.jar"));
        assertThat(Files.isRegularFile(built)).as("the packaged jar %s", built).isTrue();
        PluginTestKit.Builder jar = PluginTestKit.plugin(built).timeout(CollWorkers.TIMEOUT);
        int p = 3;
        int count = 10_000;
        try (TestDomain domain = PluginTestKit.domain(jar, jar, jar);
                Memory src = new Memory(8L * count);
                Memory dst = new Memory(8L * count * p)) {
            WorkerCommand[] create = new WorkerCommand[p];
            for (int r = 0; r < p; r++) {
                create[r] = domain.worker(r)
                        .send(
                                r,
                                CollCommand.TeamCreate.range(r, 5, p, r, 0, 1, 0, 0, 0)
                                        .encode());
            }
            for (int r = 0; r < p; r++) {
                assertThat(CollNotification.decode(
                                        domain.worker(r).awaitAnswer(create[r]).payload())
                                .header()
                                .reasonValue())
                        .isEqualTo(Reason.NONE);
            }
            for (int i = 0; i < count; i++) {
                src.setDouble(8L * i, i);
            }
            WorkerCommand[] post = new WorkerCommand[p];
            for (int r = 0; r < p; r++) {
                post[r] = domain.worker(r)
                        .send(
                                10 + r,
                                CollCommand.Post.builder(10 + r, 5)
                                        .coll(CollType.ALLREDUCE.code())
                                        .dtype(DataType.FLOAT64.code())
                                        .op(ReduceOp.SUM.code())
                                        .count(count)
                                        .src(Pointer.nativeValue(src))
                                        .dst(Pointer.nativeValue(dst) + 8L * count * r)
                                        .build()
                                        .encode());
            }
            for (int r = 0; r < p; r++) {
                assertThat(CollNotification.decode(
                                        domain.worker(r).awaitAnswer(post[r]).payload())
                                .header()
                                .reasonValue())
                        .isEqualTo(Reason.NONE);
                assertThat(dst.getDouble(8L * count * r + 8L * 4321)).isEqualTo(3 * 4321.0);
            }
        }
    }
}
