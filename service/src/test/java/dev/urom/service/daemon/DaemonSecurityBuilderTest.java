// SPDX-License-Identifier: Apache-2.0
package dev.urom.service.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.wire.ServiceAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DaemonSecurityBuilderTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        DaemonSecurity defaults = DaemonSecurity.defaults();

        assertThat(defaults.authKeys()).isNull();
        assertThat(defaults.insecureTcp()).isFalse();
        assertThat(defaults.socketGroup()).isNull();
        assertThat(defaults.workerUser()).isNull();
        assertThat(defaults.workerGroups()).isEmpty();
        assertThat(defaults.workerUidRange()).isNull();
        assertThat(defaults.workerUids()).isEqualTo(UidRange.DEFAULT);
        assertThat(defaults.workerEnvAllow()).containsExactly("UCX_*", "UCC_*", "OMP_*");
        assertThat(defaults.maxWorkersPerPrincipal()).isZero();
        assertThat(defaults.maxConnections()).isEqualTo(256);
        assertThat(defaults.maxConnectionsPerPrincipal()).isEqualTo(64);
        assertThat(defaults.maxInflight()).isEqualTo(1024);
        assertThat(defaults.handshakeTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(defaults.allowInsecurePluginDirs()).isFalse();
        assertThat(defaults.dumpableWorkers()).isFalse();
    }

    @Test
    void eachSetterSetsItsOptionAndToBuilderKeepsTheOthers() {
        DaemonSecurity security = DaemonSecurity.builder()
                .authKeys(Path.of("keys"))
                .insecureTcp(true)
                .socketGroup("urom")
                .workerUser("nobody")
                .workerGroups(List.of("4242"))
                .workerUidRange(new UidRange(5000, 5999))
                .workerEnvAllow(List.of("A_*"))
                .maxWorkersPerPrincipal(2)
                .maxConnections(9)
                .maxConnectionsPerPrincipal(3)
                .maxInflight(16)
                .handshakeTimeout(Duration.ofMillis(700))
                .allowInsecurePluginDirs(true)
                .dumpableWorkers(true)
                .build();

        assertThat(security.authKeys()).isEqualTo(Path.of("keys").toAbsolutePath());
        assertThat(security.insecureTcp()).isTrue();
        assertThat(security.socketGroup()).isEqualTo("urom");
        assertThat(security.workerUser()).isEqualTo("nobody");
        assertThat(security.workerGroups()).containsExactly("4242");
        assertThat(security.workerUids()).isEqualTo(new UidRange(5000, 5999));
        assertThat(security.workerEnvAllow()).containsExactly("A_*");
        assertThat(security.maxWorkersPerPrincipal()).isEqualTo(2);
        assertThat(security.maxConnections()).isEqualTo(9);
        assertThat(security.maxConnectionsPerPrincipal()).isEqualTo(3);
        assertThat(security.maxInflight()).isEqualTo(16);
        assertThat(security.handshakeTimeout()).isEqualTo(Duration.ofMillis(700));
        assertThat(security.allowInsecurePluginDirs()).isTrue();
        assertThat(security.dumpableWorkers()).isTrue();

        DaemonSecurity changed = security.toBuilder().maxInflight(32).build();
        assertThat(changed.maxInflight()).isEqualTo(32);
        assertThat(changed)
                .usingRecursiveComparison()
                .usingOverriddenEquals()
                .ignoringFields("options.maxInflight")
                .isEqualTo(security);
        assertThat(security.maxInflight()).as("the original").isEqualTo(16);
    }

    @Test
    void listsAreCopiedAndNullListsAreEmpty() {
        List<String> groups = new ArrayList<>(List.of("4242"));
        DaemonSecurity security = DaemonSecurity.builder()
                .workerGroups(groups)
                .workerEnvAllow(null)
                .build();
        groups.add("4243");

        assertThat(security.workerGroups()).containsExactly("4242");
        assertThat(security.workerEnvAllow()).isEmpty();
        assertThatThrownBy(() -> security.workerGroups().add("1")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(DaemonSecurity.builder().workerGroups(null).build().workerGroups())
                .isEmpty();
    }

    @Test
    void onlyATcpListenerWithNeitherKeysNorInsecureTcpAdmitsNobody() {
        ServiceAddress tcp = ServiceAddress.tcp("127.0.0.1", 7300);

        assertThat(DaemonSecurity.defaults().admitsNobodyOn(tcp)).isTrue();
        assertThat(DaemonSecurity.builder().insecureTcp(true).build().admitsNobodyOn(tcp))
                .isFalse();
        assertThat(DaemonSecurity.builder().authKeys(Path.of("keys")).build().admitsNobodyOn(tcp))
                .isFalse();
        assertThat(DaemonSecurity.defaults().admitsNobodyOn(ServiceAddress.unix(Path.of("/run/urom/urom.sock"))))
                .isFalse();
    }

    static Stream<Arguments> badValues() {
        return Stream.of(
                refusal(
                        "--socket-group 'a b' is not a user or group name, a number, or UID:GID",
                        b -> b.socketGroup("a b")),
                refusal(
                        "--worker-user '-x' is not a user or group name, a number, or UID:GID",
                        b -> b.workerUser("-x")),
                refusal(
                        "--worker-groups [4242, a/b] holds 'a/b', which is not a group name or number",
                        b -> b.workerGroups(List.of("4242", "a/b"))),
                refusal(
                        "--worker-groups [null] holds 'null', which is not a group name or number",
                        b -> b.workerGroups(Arrays.asList((String) null))),
                refusal(
                        "--worker-env-allow [A B] holds 'A B', which is not a pattern of env names (letters, digits, _ and *)",
                        b -> b.workerEnvAllow(List.of("A B"))),
                refusal("--max-workers-per-principal -1 is negative", b -> b.maxWorkersPerPrincipal(-1)),
                refusal("--max-connections 0 is not positive", b -> b.maxConnections(0)),
                refusal("--max-connections-per-principal -2 is not positive", b -> b.maxConnectionsPerPrincipal(-2)),
                refusal("--max-inflight 3 is not a power of two from 1 to 1048576", b -> b.maxInflight(3)),
                refusal("--max-inflight 2097152 is not a power of two from 1 to 1048576", b -> b.maxInflight(1 << 21)),
                refusal("--handshake-timeout-ms 0 is not positive", b -> b.handshakeTimeout(Duration.ZERO)));
    }

    private static Arguments refusal(String message, Consumer<DaemonSecurity.Builder> bad) {
        return Arguments.of(message, bad);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badValues")
    void eachRefusalIsOneLineNamingTheOption(String message, Consumer<DaemonSecurity.Builder> bad) {
        DaemonSecurity.Builder builder = DaemonSecurity.builder();
        bad.accept(builder);

        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }
}
