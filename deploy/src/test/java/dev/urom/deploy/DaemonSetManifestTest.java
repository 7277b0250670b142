// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.cli.DaemonOptions;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class DaemonSetManifestTest {
    private final StrictManifestReader reader = new StrictManifestReader();

    private DaemonSet daemonSet(String text) {
        return reader.read(Manifests.DAEMON_SET, text, DaemonSet.class);
    }

    @Test
    void daemonSetPodPassesTheDaemonChecks() {
        DaemonSet set = daemonSet(Manifests.text(Manifests.DAEMON_SET));
        UromPodChecks.check(Manifests.DAEMON_SET, set.getSpec().getTemplate().getSpec());
    }

    @Test
    void keysComeFromASecretThatOnlyRootMayRead() {
        PodSpec pod = daemonSet(Manifests.text(Manifests.DAEMON_SET))
                .getSpec()
                .getTemplate()
                .getSpec();
        Container container = UromPodChecks.uromContainer(Manifests.DAEMON_SET, pod);
        Volume keys =
                UromPodChecks.volumeMountedAt(Manifests.DAEMON_SET, pod, container, Path.of(ImageLayout.KEYS_DIR));
        assertThat(keys.getSecret()).as("the DaemonSet's keys are a Secret").isNotNull();
        assertThat(keys.getSecret().getDefaultMode())
                .as("defaultMode 0400, read as YAML's octal")
                .isEqualTo(256);
        assertThat(pod.getAutomountServiceAccountToken())
                .as("automountServiceAccountToken")
                .isFalse();
    }

    /** Each edit breaks one thing the checks stand for in the DaemonSet's own parts; the checks must notice. */
    static Stream<Arguments> brokenEdits() {
        return Stream.of(
                Arguments.of("key files readable by all", "defaultMode: 0400", "defaultMode: 0444"),
                Arguments.of("key files writable by their owner", "defaultMode: 0400", "defaultMode: 0600"),
                Arguments.of(
                        "one key file readable by all",
                        "            defaultMode: 0400\n",
                        "            defaultMode: 0400\n            items:\n              - key: jobA\n                path: jobA\n                mode: 0444\n"),
                Arguments.of(
                        "keys optional",
                        "            defaultMode: 0400\n",
                        "            defaultMode: 0400\n            optional: true\n"),
                Arguments.of(
                        "an fsGroup, which makes the keys group-readable",
                        "      hostNetwork: true\n",
                        "      hostNetwork: true\n      securityContext:\n        fsGroup: 2000\n"),
                Arguments.of(
                        "keys neither a Secret nor a host folder",
                        "          secret:\n            secretName: urom-keys\n            defaultMode: 0400\n",
                        "          emptyDir: {}\n"),
                Arguments.of("TCP hosts let in without a key", "--http-port 7301", "--http-port 7301 --insecure-tcp"),
                Arguments.of(
                        "every principal's workers as one uid",
                        "--worker-uid-range 1879048192-1879113727",
                        "--worker-user 10001:10001"),
                Arguments.of(
                        "a worker uid range holding the node's accounts",
                        "--worker-uid-range 1879048192-1879113727",
                        "--worker-uid-range 1000-60000"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenEdits")
    void checksRefuseABrokenDaemonSet(String what, String original, String replacement) {
        String text = Manifests.text(Manifests.DAEMON_SET);
        assertThat(text).as("the edit '%s' must apply to the manifest", what).contains(original);
        String broken = text.replaceFirst(Pattern.quote(original), Matcher.quoteReplacement(replacement));
        DaemonSet set = reader.read("broken " + Manifests.DAEMON_SET, broken, DaemonSet.class);
        assertThatThrownBy(() -> UromPodChecks.check(
                        "broken " + Manifests.DAEMON_SET,
                        set.getSpec().getTemplate().getSpec()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("broken " + Manifests.DAEMON_SET);
    }

    @Test
    void runsOnlyOnLabelledDevicesAndSelectsItsOwnPods() {
        DaemonSet set = daemonSet(Manifests.text(Manifests.DAEMON_SET));
        PodSpec pod = set.getSpec().getTemplate().getSpec();
        assertThat(pod.getNodeSelector()).containsEntry("urom.dev/device", "true");
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(set.getSpec().getTemplate().getMetadata().getLabels())
                .containsAllEntriesOf(set.getSpec().getSelector().getMatchLabels());
        assertThat(set.getSpec().getSelector().getMatchLabels()).isNotEmpty();
    }

    @Test
    void probesAskTheHealthPortTheDaemonIsGiven() {
        DaemonSet set = daemonSet(Manifests.text(Manifests.DAEMON_SET));
        checkProbes(set);
    }

    @Test
    void probesOnAnotherPortThanHttpPortAreRefused() {
        String text = Manifests.text(Manifests.DAEMON_SET).replace("--http-port 7301", "--http-port 7401");
        assertThatThrownBy(() -> checkProbes(daemonSet(text)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("--http-port");
    }

    @Test
    void livenessOnTheWrongPathIsRefused() {
        String text = Manifests.text(Manifests.DAEMON_SET).replace("path: /healthz", "path: /health");
        assertThatThrownBy(() -> checkProbes(daemonSet(text)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("livenessProbe");
    }

    @Test
    void prometheusAnnotationsNameTheHttpPortAndTheMetricsPath() {
        checkScrapeAnnotations(daemonSet(Manifests.text(Manifests.DAEMON_SET)));
    }

    @Test
    void aScrapeAnnotationOnAnotherPortIsRefused() {
        String text = Manifests.text(Manifests.DAEMON_SET)
                .replace("prometheus.io/port: \"7301\"", "prometheus.io/port: \"9090\"");
        assertThatThrownBy(() -> checkScrapeAnnotations(daemonSet(text)))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("prometheus.io/port");
    }

    private static void checkScrapeAnnotations(DaemonSet set) {
        Container container = UromPodChecks.uromContainer(
                Manifests.DAEMON_SET, set.getSpec().getTemplate().getSpec());
        DaemonOptions args = DaemonOptions.parse(
                UromPodChecks.env(Manifests.DAEMON_SET, container, "SERVICE_ARGS"),
                UromPodChecks.env(Manifests.DAEMON_SET, container, "UROM_PLUGIN_PATH"));
        java.util.Map<String, String> annotations =
                set.getSpec().getTemplate().getMetadata().getAnnotations();
        assertThat(annotations).as("%s: pod annotations", Manifests.DAEMON_SET).isNotNull();
        assertThat(annotations.get("prometheus.io/scrape"))
                .as("%s: prometheus.io/scrape", Manifests.DAEMON_SET)
                .isEqualTo("true");
        assertThat(annotations.get("prometheus.io/port"))
                .as("%s: prometheus.io/port (must be --http-port)", Manifests.DAEMON_SET)
                .isEqualTo(String.valueOf(args.httpPort().orElseThrow()));
        assertThat(annotations.get("prometheus.io/path"))
                .as("%s: prometheus.io/path", Manifests.DAEMON_SET)
                .isEqualTo(ImageLayout.METRICS_PATH);
    }

    @Test
    void containerIsTheStaticPodsApartFromHealth() {
        Container fromSet = UromPodChecks.uromContainer(
                Manifests.DAEMON_SET,
                daemonSet(Manifests.text(Manifests.DAEMON_SET))
                        .getSpec()
                        .getTemplate()
                        .getSpec());
        PodSpec staticSpec = reader.read(Manifests.STATIC_POD, Manifests.text(Manifests.STATIC_POD), Pod.class)
                .getSpec();
        Container fromPod = UromPodChecks.uromContainer(Manifests.STATIC_POD, staticSpec);
        PodSpec setSpec = daemonSet(Manifests.text(Manifests.DAEMON_SET))
                .getSpec()
                .getTemplate()
                .getSpec();
        assertThat(fromSet.getImage()).isEqualTo(fromPod.getImage());
        assertThat(fromSet.getResources()).isEqualTo(fromPod.getResources());
        assertThat(fromSet.getSecurityContext()).isEqualTo(fromPod.getSecurityContext());
        assertThat(fromSet.getVolumeMounts()).isEqualTo(fromPod.getVolumeMounts());
        String keys = UromPodChecks.volumeMountedAt(
                        Manifests.DAEMON_SET, setSpec, fromSet, Path.of(ImageLayout.KEYS_DIR))
                .getName();
        assertThat(setSpec.getVolumes().stream()
                        .filter(v -> !v.getName().equals(keys))
                        .toList())
                .as("the volumes, apart from the keys (a static pod cannot use a Secret)")
                .isEqualTo(staticSpec.getVolumes().stream()
                        .filter(v -> !v.getName().equals(keys))
                        .toList());
        assertThat(UromPodChecks.env(Manifests.DAEMON_SET, fromSet, "UROM_PLUGIN_PATH"))
                .isEqualTo(UromPodChecks.env(Manifests.STATIC_POD, fromPod, "UROM_PLUGIN_PATH"));
        String setArgs = UromPodChecks.env(Manifests.DAEMON_SET, fromSet, "SERVICE_ARGS");
        String podArgs = UromPodChecks.env(Manifests.STATIC_POD, fromPod, "SERVICE_ARGS");
        assertThat(setArgs.replaceAll("\\s*" + "--http-port" + "\\s+\\d+", "")
                        .replaceAll("\\s*--http-host\\s+0\\.0\\.0\\.0", ""))
                .as("the DaemonSet adds only the health endpoint, on every interface for the kubelet's probes")
                .isEqualTo(podArgs);
    }

    private static void checkProbes(DaemonSet set) {
        PodSpec pod = set.getSpec().getTemplate().getSpec();
        Container container = UromPodChecks.uromContainer(Manifests.DAEMON_SET, pod);
        DaemonOptions args = DaemonOptions.parse(
                UromPodChecks.env(Manifests.DAEMON_SET, container, "SERVICE_ARGS"),
                UromPodChecks.env(Manifests.DAEMON_SET, container, "UROM_PLUGIN_PATH"));
        assertThat(args.httpPort())
                .as("%s: SERVICE_ARGS %s", Manifests.DAEMON_SET, "--http-port")
                .hasValue(ImageLayout.HEALTH_PORT);
        checkHttpProbe(
                "livenessProbe",
                container.getLivenessProbe(),
                container,
                ImageLayout.LIVENESS_PATH,
                args.httpPort().getAsInt());
        checkHttpProbe(
                "readinessProbe",
                container.getReadinessProbe(),
                container,
                ImageLayout.READINESS_PATH,
                args.httpPort().getAsInt());
    }

    private static void checkHttpProbe(String which, Probe probe, Container container, String path, int port) {
        assertThat(probe).as("%s: %s", Manifests.DAEMON_SET, which).isNotNull();
        HTTPGetAction get = probe.getHttpGet();
        assertThat(get).as("%s: %s.httpGet", Manifests.DAEMON_SET, which).isNotNull();
        assertThat(get.getPath())
                .as("%s: %s.httpGet.path", Manifests.DAEMON_SET, which)
                .isEqualTo(path);
        assertThat(resolvePort(get.getPort(), container))
                .as("%s: %s.httpGet.port (must be --http-port)", Manifests.DAEMON_SET, which)
                .isEqualTo(port);
        assertThat(probe.getTimeoutSeconds())
                .as("%s: %s.timeoutSeconds", Manifests.DAEMON_SET, which)
                .isPositive();
    }

    private static Integer resolvePort(IntOrString port, Container container) {
        if (port.getIntVal() != null) {
            return port.getIntVal();
        }
        return UromPodChecks.containerPorts(container).get(port.getStrVal());
    }
}
