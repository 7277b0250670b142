// SPDX-License-Identifier: Apache-2.0
package dev.urom.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.NumericChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceAddressTest {
    @TempDir
    Path dir;

    @Property
    void tcpTextRoundTrips(
            @ForAll @AlphaChars @NumericChars @StringLength(min = 1, max = 30) String host,
            @ForAll @IntRange(min = 0, max = 65535) int port) {
        ServiceAddress a = ServiceAddress.parse("tcp:" + host + ":" + port);
        assertThat(a.isUnix()).isFalse();
        assertThat(a.host()).isEqualTo(host);
        assertThat(a.port()).isEqualTo(port);
        assertThat(ServiceAddress.parse(a.toString())).isEqualTo(a);
        assertThat(a.toString()).isEqualTo("tcp:" + host + ":" + port);
    }

    @Property
    void portsOutOfRangeAreRefused(@ForAll @IntRange(min = 65536, max = 99999) int port) {
        assertThatThrownBy(() -> ServiceAddress.parse("tcp:h:" + port))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("service address 'tcp:h:" + port + "' is invalid: port " + port
                        + " is out of range (0..65535)");
    }

    @Property
    void unixTextRoundTrips(
            @ForAll @AlphaChars @StringLength(min = 1, max = 20) String a,
            @ForAll @AlphaChars @StringLength(min = 1, max = 20) String b) {
        ServiceAddress address = ServiceAddress.parse("unix:/" + a + "/" + b + ".sock");
        assertThat(address.isUnix()).isTrue();
        assertThat(address.unixPath()).isEqualTo(Path.of("/" + a + "/" + b + ".sock"));
        assertThat(ServiceAddress.parse(address.toString())).isEqualTo(address);
    }

    @Test
    void ipv6HostsGoInBrackets() {
        ServiceAddress a = ServiceAddress.parse("tcp:[::1]:7300");
        assertThat(a.host()).isEqualTo("::1");
        assertThat(a.port()).isEqualTo(7300);
        assertThat(a).hasToString("tcp:[::1]:7300");
    }

    @Test
    void badTextsAreRefusedWithOneLineNamingThem() {
        assertRefused("unix:relative/x.sock", "the path is not absolute");
        assertRefused("unix:", "the path is empty");
        assertRefused("http://x", "it starts with neither 'unix:' nor 'tcp:'");
        assertRefused("tcp:host", "the port is missing (tcp:HOST:PORT)");
        assertRefused("tcp::80", "the host is empty");
        assertRefused("tcp:h:8a", "port '8a' is not a number from 0 to 65535");
        assertRefused("tcp:h:", "port '' is not a number from 0 to 65535");
        assertRefused("tcp:::1:80", "an IPv6 host must be in brackets (tcp:[::1]:7300)");
        assertRefused("tcp:[::1:80", "the '[' of the host has no ']'");
        assertRefused("tcp:[::1]", "the port is missing (tcp:HOST:PORT)");
        assertRefused(
                "unix:/" + "x".repeat(120),
                "unix socket path '/" + "x".repeat(120) + "' is 121 bytes; the limit is 107");
        assertThatThrownBy(() -> ServiceAddress.parse(null)).hasMessage("service address is missing");
    }

    private static void assertRefused(String text, String reason) {
        assertThatThrownBy(() -> ServiceAddress.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("service address '" + text + "' is invalid: " + reason);
    }

    @Test
    void accessorsOfTheOtherKindAreRefused() {
        assertThatThrownBy(() -> ServiceAddress.parse("tcp:h:1").unixPath())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("tcp:h:1 is not a Unix socket address");
        assertThatThrownBy(() -> ServiceAddress.parse("unix:/a").port())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("unix:/a is not a TCP address");
    }

    @Test
    void aWildcardTcpHostIsReplacedByTheAddressThePeerReached() throws Exception {
        java.net.InetAddress reached = java.net.InetAddress.getByName("192.0.2.7");

        assertThat(ServiceAddress.parse("tcp:0.0.0.0:7301").reachableVia(reached))
                .hasToString("tcp:192.0.2.7:7301");
        assertThat(ServiceAddress.parse("tcp:[::]:7301").reachableVia(java.net.InetAddress.getByName("fe80::1%1")))
                .hasToString("tcp:[fe80:0:0:0:0:0:0:1]:7301");
        assertThat(ServiceAddress.parse("tcp:10.0.0.1:7301").reachableVia(reached))
                .hasToString("tcp:10.0.0.1:7301");
        assertThat(ServiceAddress.parse("tcp:device-1:7301").reachableVia(reached))
                .hasToString("tcp:device-1:7301");
        assertThat(ServiceAddress.parse("unix:/run/urom/w.sock").reachableVia(reached))
                .hasToString("unix:/run/urom/w.sock");
        assertThat(ServiceAddress.parse("tcp:0.0.0.0:7301").reachableVia(java.net.InetAddress.getByName("0.0.0.0")))
                .as("a wildcard is no better")
                .hasToString("tcp:0.0.0.0:7301");
    }

    @Test
    void defaultListenAddress() {
        assertThat(ServiceAddress.defaultListen(Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), true, "root", "/tmp"))
                .hasToString("tcp:0.0.0.0:7300");
        assertThat(ServiceAddress.defaultListen(Map.of(), true, "root", "/tmp"))
                .hasToString("unix:/run/urom/urom.sock");
        assertThat(ServiceAddress.defaultListen(Map.of("XDG_RUNTIME_DIR", "/run/user/1000"), false, "ann", "/tmp"))
                .hasToString("unix:/run/user/1000/urom/urom.sock");
        assertThat(ServiceAddress.defaultListen(Map.of(), false, "ann", "/var/tmp"))
                .hasToString("unix:/var/tmp/urom-ann/urom/urom.sock");
        assertThat(ServiceAddress.defaultListen()).isNotNull();
    }

    @Test
    void bindReplacesAStaleSocketFile() throws IOException {
        ServiceAddress address = ServiceAddress.unix(dir.resolve("run/s.sock"));
        ServerSocketChannel first = address.bind();
        first.close();
        assertThat(Files.exists(address.unixPath()))
                .as("a closed Unix server leaves its file behind")
                .isTrue();

        try (ServerSocketChannel second = address.bind();
                SocketChannel client = address.connect()) {
            assertThat(client.isConnected()).isTrue();
            assertThat(second.accept()).isNotNull();
        }
    }

    @Test
    void bindRefusesASocketThatALiveServiceAnswersOn() throws IOException {
        ServiceAddress address = ServiceAddress.unix(dir.resolve("live.sock"));
        try (ServerSocketChannel live = address.bind()) {
            assertThatThrownBy(address::bind)
                    .isInstanceOf(IOException.class)
                    .hasMessage(address.unixPath() + " is in use by a live service");
            try (SocketChannel stillServed = address.connect()) {
                assertThat(stillServed.isConnected()).isTrue();
            }
        }
    }

    @Test
    void bindRefusesToRemoveAFileThatIsNotASocket() throws IOException {
        Path file = Files.writeString(dir.resolve("data.sock"), "keep me");
        assertThatThrownBy(() -> ServiceAddress.unix(file).bind())
                .isInstanceOf(IOException.class)
                .hasMessage(file + " exists and is not a socket");
        assertThat(Files.readString(file)).isEqualTo("keep me");
    }

    @Test
    void tcpPortZeroGetsItsRealPort() throws IOException {
        ServiceAddress address = ServiceAddress.parse("tcp:127.0.0.1:0");
        try (ServerSocketChannel server = address.bind()) {
            ServiceAddress bound = address.boundTo(server);
            assertThat(bound.port()).isPositive();
            try (SocketChannel client = bound.connect()) {
                assertThat(client.isConnected()).isTrue();
            }
        }
    }

    @Test
    void connectToNothingFails() {
        assertThatThrownBy(() -> ServiceAddress.unix(dir.resolve("none.sock")).connect())
                .isInstanceOf(IOException.class);
    }
}
