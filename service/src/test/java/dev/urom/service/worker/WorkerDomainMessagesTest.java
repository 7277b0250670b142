// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.auth.Proofs;
import dev.urom.nativebridge.testkit.NativeFixtures;
import dev.urom.service.worker.WorkerProcess.Connected;
import dev.urom.spi.UromStatus;
import dev.urom.wire.DomainPeer;
import dev.urom.wire.Frame;
import dev.urom.wire.Message.AddressReply;
import dev.urom.wire.Message.AddressRequest;
import dev.urom.wire.Message.DomainSet;
import dev.urom.wire.Message.DomainSetReply;
import dev.urom.wire.ServiceAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** ADDRESS and DOMAIN_SET on a real worker process's data connection. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WorkerDomainMessagesTest {
    private static final long ECHO_ID = 0x4;

    @TempDir
    Path dir;

    private WorkerProcess worker;

    @AfterEach
    void destroy() throws InterruptedException {
        if (worker != null) {
            worker.destroy();
        }
    }

    private static DomainPeer peer(long domainId) {
        byte[] address = {1};
        return new DomainPeer(
                domainId,
                List.of(new DomainPeer.PluginAddress(ECHO_ID, address, WorkerProcess.seal(ECHO_ID, address))),
                List.of());
    }

    @Test
    void answersAddressesAndInstallsOrRefusesDomainTables() throws Exception {
        Path echo = WorkerFixtures.echo(dir.resolve("plugins"), "echo.so");
        worker = WorkerProcess.start(
                dir.resolve("log"),
                WorkerProcess.args(
                        ServiceAddress.unix(dir.resolve("run").resolve("w.sock")),
                        4096,
                        List.of(echo + ":" + ECHO_ID)));
        Connected host = worker.connect();

        host.channel().send(11, new AddressRequest(ECHO_ID));
        Frame reply = host.channel().receive();
        assertThat(reply.requestId()).isEqualTo(11);
        byte[] echoAddress = "echo".getBytes(StandardCharsets.UTF_8);
        assertThat(reply.message())
                .isEqualTo(new AddressReply(
                        UromStatus.SUCCESS, echoAddress, "", WorkerProcess.seal(ECHO_ID, echoAddress)));

        host.channel().send(12, new AddressRequest(0x40));
        reply = host.channel().receive();
        assertThat(reply.requestId()).isEqualTo(12);
        assertThat(reply.message()).isEqualTo(AddressReply.failed(UromStatus.NOT_FOUND));

        host.channel().send(13, new DomainSet(5, List.of(peer(1), peer(2))));
        reply = host.channel().receive();
        assertThat(reply.requestId()).isEqualTo(13);
        assertThat(reply.message())
                .isEqualTo(new DomainSetReply(
                        UromStatus.INVALID_VALUE, "own domain id 5 is not in the domain table (2 peers)"));

        host.channel().send(14, new DomainSet(1, List.of(peer(1), peer(1))));
        reply = host.channel().receive();
        assertThat(reply.requestId()).isEqualTo(14);
        assertThat(reply.message())
                .isEqualTo(
                        new DomainSetReply(UromStatus.INVALID_VALUE, "domain id 1 appears twice in the domain table"));

        host.channel().send(15, new DomainSet(1, List.of(peer(1), peer(2))));
        reply = host.channel().receive();
        assertThat(reply.requestId()).isEqualTo(15);
        assertThat(reply.message()).isEqualTo(new DomainSetReply(UromStatus.SUCCESS, ""));
    }

    @Test
    void anAddressReplyCarriesThePluginsTransportUnderTheSeal() throws Exception {
        long ucpId = 0x8;
        Path ucp = NativeFixtures.compileWakeupPlugin(dir.resolve("plugins"), "ucp.so", "-DTRANSPORT=\"ucp-tag\"");
        Path echo = WorkerFixtures.echo(dir.resolve("plugins"), "echo.so");
        worker = WorkerProcess.start(
                dir.resolve("log"),
                WorkerProcess.args(
                        ServiceAddress.unix(dir.resolve("run").resolve("w.sock")),
                        4096,
                        List.of(echo + ":" + ECHO_ID, ucp + ":" + ucpId)));
        Connected host = worker.connect();

        host.channel().send(21, new AddressRequest(ucpId));
        AddressReply reply = (AddressReply) host.channel().receive().message();
        assertThat(reply.status()).isEqualTo(UromStatus.SUCCESS);
        assertThat(reply.transport()).isEqualTo("ucp-tag");
        assertThat(new String(reply.address(), StandardCharsets.UTF_8)).startsWith("wakeup-");
        assertThat(reply.seal())
                .isEqualTo(Proofs.seal(WorkerProcess.ACCESS.sealKey(), ucpId, "ucp-tag", reply.address()))
                .isNotEqualTo(WorkerProcess.seal(ucpId, reply.address()));

        DomainPeer.PluginAddress sealed = new DomainPeer.PluginAddress(ucpId, reply.address(), "ucp-tag", reply.seal());
        host.channel().send(22, new DomainSet(1, List.of(new DomainPeer(1, List.of(sealed), List.of()))));
        assertThat(host.channel().receive().message()).isEqualTo(new DomainSetReply(UromStatus.SUCCESS, ""));
        DomainPeer.PluginAddress relabelled = new DomainPeer.PluginAddress(ucpId, reply.address(), "tcp", reply.seal());
        host.channel().send(23, new DomainSet(1, List.of(new DomainPeer(1, List.of(relabelled), List.of()))));
        assertThat(host.channel().receive().message())
                .isEqualTo(
                        new DomainSetReply(
                                UromStatus.NOT_PERMITTED,
                                "the address of plugin id 0x8 at domain id 1 is not one a worker of this owner published (its seal does not match)"));
    }

    @Test
    void aNativePluginWithAnInvalidTransportNameFailsTheWorkerWithOneLine() throws Exception {
        long badId = 0x8;
        Path bad = NativeFixtures.compileWakeupPlugin(dir.resolve("plugins"), "bad.so", "-DTRANSPORT=\"ucp+tag\"");
        Path echo = WorkerFixtures.echo(dir.resolve("plugins"), "echo.so");
        worker = WorkerProcess.start(
                dir.resolve("log"),
                WorkerProcess.args(
                        ServiceAddress.unix(dir.resolve("run").resolve("w.sock")),
                        4096,
                        List.of(echo + ":" + ECHO_ID, bad + ":" + badId)));

        assertThat(worker.replyLine)
                .isEqualTo(
                        "FAILED INVALID_VALUE plugin 'bad' (" + bad + ":8): cannot be loaded: " + bad
                                + ": urom_plugin_get_transport: the transport name has character '+' at index 3, not one of [A-Za-z0-9._:/-]");
    }
}
