// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.cli.DaemonOptions;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The NetworkPolicy example: it selects the pods of both manifests, restricts their ingress, and
 * opens exactly the daemon's {@code --listen} port, the workers' port range and the DaemonSet's
 * {@code --http-port}, each to named sources only.
 */
class NetworkPolicyManifestTest {
    private final StrictManifestReader reader = new StrictManifestReader();

    /** An allowed TCP port range, both ends included. */
    private record PortRange(int first, int last) {}

    @Test
    void theExamplePolicyPasses() {
        check(Manifests.NETWORK_POLICY, Manifests.text(Manifests.NETWORK_POLICY));
    }

    static Stream<Arguments> brokenEdits() {
        return Stream.of(
                Arguments.of(
                        "selects other pods",
                        "    matchLabels:\n      app.kubernetes.io/name: urom",
                        "    matchLabels:\n      app.kubernetes.io/name: other"),
                Arguments.of(
                        "selects every pod",
                        "  podSelector:\n    matchLabels:\n      app.kubernetes.io/name: urom\n",
                        "  podSelector: {}\n"),
                Arguments.of("restricts egress only", "    - Ingress", "    - Egress"),
                Arguments.of("another daemon port", "          port: 7300", "          port: 7400"),
                Arguments.of("a port the daemon does not use", "          port: 7301", "          port: 22"),
                Arguments.of(
                        "a rule for every port", "      ports:\n        - protocol: TCP\n          port: 7301\n", ""),
                Arguments.of(
                        "a rule for every source",
                        "    - from:\n        - ipBlock:\n            cidr: 10.0.0.0/8\n      ports:",
                        "    - ports:"),
                Arguments.of(
                        "workers unreachable",
                        "        - protocol: TCP\n          port: 32768\n          endPort: 60999\n",
                        ""),
                Arguments.of("only part of the workers' range", "endPort: 60999", "endPort: 40000"),
                Arguments.of(
                        "UDP instead of TCP",
                        "        - protocol: TCP\n          port: 7300",
                        "        - protocol: UDP\n          port: 7300"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenEdits")
    void checksRefuseABrokenPolicy(String what, String original, String replacement) {
        String text = Manifests.text(Manifests.NETWORK_POLICY);
        assertThat(text).as("the edit '%s' must apply to the manifest", what).contains(original);
        String broken = text.replaceFirst(Pattern.quote(original), Matcher.quoteReplacement(replacement));
        assertThatThrownBy(() -> check("broken " + Manifests.NETWORK_POLICY, broken))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("broken " + Manifests.NETWORK_POLICY);
    }

    private void check(String source, String text) {
        NetworkPolicy policy = reader.read(source, text, NetworkPolicy.class);
        DaemonSet set = reader.read(Manifests.DAEMON_SET, Manifests.text(Manifests.DAEMON_SET), DaemonSet.class);
        Pod staticPod = reader.read(Manifests.STATIC_POD, Manifests.text(Manifests.STATIC_POD), Pod.class);
        Map<String, String> selector = policy.getSpec().getPodSelector().getMatchLabels();
        assertThat(policy.getSpec().getPodSelector().getMatchExpressions())
                .as("%s: podSelector.matchExpressions", source)
                .isEmpty();
        assertThat(selector)
                .as("%s: podSelector.matchLabels (the daemon's pods, no others)", source)
                .isNotEmpty()
                .isEqualTo(set.getSpec().getSelector().getMatchLabels());
        assertThat(set.getSpec().getTemplate().getMetadata().getLabels())
                .as("%s: the DaemonSet's pods are selected", source)
                .containsAllEntriesOf(selector);
        assertThat(staticPod.getMetadata().getLabels())
                .as("%s: the static pod is selected", source)
                .containsAllEntriesOf(selector);
        assertThat(policy.getSpec().getPolicyTypes())
                .as("%s: policyTypes", source)
                .contains("Ingress");

        Container container = UromPodChecks.uromContainer(
                Manifests.DAEMON_SET, set.getSpec().getTemplate().getSpec());
        DaemonOptions args = DaemonOptions.parse(
                UromPodChecks.env(Manifests.DAEMON_SET, container, "SERVICE_ARGS"),
                UromPodChecks.env(Manifests.DAEMON_SET, container, "UROM_PLUGIN_PATH"));
        List<PortRange> allowed = new ArrayList<>();
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        for (int i = 0; i < rules.size(); i++) {
            NetworkPolicyIngressRule rule = rules.get(i);
            assertThat(rule.getFrom())
                    .as("%s: ingress[%d].from (a rule without sources admits everyone)", source, i)
                    .isNotEmpty();
            assertThat(rule.getPorts())
                    .as("%s: ingress[%d].ports (a rule without ports opens every port)", source, i)
                    .isNotEmpty();
            for (NetworkPolicyPort port : rule.getPorts()) {
                allowed.add(range(source, i, port));
            }
        }
        assertThat(allowed)
                .as("%s: the ports the policy opens: the daemon's, the workers' range, the health port", source)
                .containsExactlyInAnyOrder(
                        new PortRange(
                                args.config().listen().port(),
                                args.config().listen().port()),
                        new PortRange(ImageLayout.WORKER_PORTS_FIRST, ImageLayout.WORKER_PORTS_LAST),
                        new PortRange(
                                args.httpPort().getAsInt(), args.httpPort().getAsInt()));
    }

    private static PortRange range(String source, int rule, NetworkPolicyPort port) {
        assertThat(port.getProtocol())
                .as("%s: ingress[%d] port protocol", source, rule)
                .isEqualTo("TCP");
        IntOrString number = port.getPort();
        assertThat(number)
                .as("%s: ingress[%d] port (a port entry without one opens every port)", source, rule)
                .isNotNull();
        assertThat(number.getIntVal())
                .as("%s: ingress[%d] port must be a number", source, rule)
                .isNotNull();
        int first = number.getIntVal();
        int last = port.getEndPort() == null ? first : port.getEndPort();
        assertThat(last).as("%s: ingress[%d] endPort", source, rule).isGreaterThanOrEqualTo(first);
        return new PortRange(first, last);
    }
}
