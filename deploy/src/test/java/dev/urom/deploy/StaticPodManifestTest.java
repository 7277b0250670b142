// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.cli.DaemonOptions;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StaticPodManifestTest {
    private final StrictManifestReader reader = new StrictManifestReader();

    @Test
    void everyManifestInTheFolderReadsStrictly() {
        assertThat(Manifests.all()).containsExactlyInAnyOrder(Manifests.STATIC_POD, Manifests.DAEMON_SET, Manifests.NETWORK_POLICY);
    }

    @Test
    void staticPodPassesTheDaemonChecks() {
        Pod pod = reader.read(Manifests.STATIC_POD, Manifests.text(Manifests.STATIC_POD), Pod.class);
        DaemonOptions args = UromPodChecks.check(Manifests.STATIC_POD, pod.getSpec());
        assertThat(args.config().maxMessageSize()).isEqualTo(4096);
        assertThat(pod.getSpec().getHostNetwork()).as("hostNetwork: hosts reach the daemon at the device's address").isTrue();
    }

    /** Each edit breaks one thing the checks stand for; the checks must notice. */
    static Stream<Arguments> brokenEdits() {
        return Stream.of(
                Arguments.of("hugepages limit differs from request", "          hugepages-2Mi: 512Mi\n        limits:", "          hugepages-2Mi: 256Mi\n        limits:"),
                Arguments.of("hugepages not whole pages", "hugepages-2Mi: 512Mi", "hugepages-2Mi: 3Mi"),
                Arguments.of("no memory request", "        requests:\n          memory: 2Gi\n", "        requests:\n"),
                Arguments.of("plugin folder not mounted", "          mountPath: /opt/urom/plugins/worker_sandbox", "          mountPath: /opt/urom/sandbox"),
                Arguments.of("plugin folder not a hostPath", "      hostPath:\n        path: /opt/urom/plugins/worker_graph\n        type: DirectoryOrCreate", "      emptyDir: {}"),
                Arguments.of("plugin folder outside the image layout", "value: \"/opt/urom/plugins/worker_graph;", "value: \"/opt/mellanox/plugins/worker_graph;"),
                Arguments.of("log dir mounted elsewhere", "          mountPath: /var/log/doca/urom", "          mountPath: /var/log/urom"),
                Arguments.of("hugetlbfs not of medium HugePages", "medium: HugePages-2Mi", "medium: Memory"),
                Arguments.of("max message size below the minimum", "-m 4096", "-m 16"),
                Arguments.of("unknown daemon option", "-l 60", "-l 60 --verbose 1"),
                Arguments.of("listen on a unix socket", "--listen tcp:0.0.0.0:7300", "--listen unix:/run/urom/urom.sock"),
                Arguments.of("SERVICE_ARGS missing", "- name: SERVICE_ARGS", "- name: SERVICE_ARG"),
                Arguments.of("TCP without keys", " --auth-keys /etc/urom/keys", ""),
                Arguments.of("TCP hosts let in without a key", "-l 60", "-l 60 --insecure-tcp"),
                Arguments.of("plugins from writable folders", "-l 60", "-l 60 --allow-insecure-plugin-dirs"),
                Arguments.of("--insecure-tcp in the container's args", "      ports:\n", "      args: [\"--insecure-tcp\"]\n      ports:\n"),
                Arguments.of("keys elsewhere than their mount", "--auth-keys /etc/urom/keys", "--auth-keys /etc/urom/other"),
                Arguments.of("keys mounted writable", "          mountPath: /etc/urom/keys\n          readOnly: true", "          mountPath: /etc/urom/keys"),
                Arguments.of("key folder created when missing", "        path: /etc/urom/keys\n        type: Directory", "        path: /etc/urom/keys\n        type: DirectoryOrCreate"),
                Arguments.of("workers as root", "--worker-user 10001:10001", "--worker-user root"),
                Arguments.of("workers as uid 0", "--worker-user 10001:10001", "--worker-user 0:10001"),
                Arguments.of("workers in group 0", "--worker-user 10001:10001", "--worker-user 10001:0"),
                Arguments.of("workers as the image's default user", " --worker-user 10001:10001", ""),
                Arguments.of("plugin folder mounted writable", "          mountPath: /opt/urom/plugins/worker_graph\n          readOnly: true", "          mountPath: /opt/urom/plugins/worker_graph"),
                Arguments.of("log folder mounted read-only", "          mountPath: /var/log/doca/urom\n", "          mountPath: /var/log/doca/urom\n          readOnly: true\n"),
                Arguments.of("a capability beyond the daemon's", "            - SETUID\n", "            - SETUID\n            - SYS_ADMIN\n"),
                Arguments.of("a needed capability missing", "            - KILL\n", ""),
                Arguments.of("capabilities not all dropped", "          drop:\n            - ALL\n", "          drop:\n            - NET_RAW\n"),
                Arguments.of("privilege escalation allowed", "allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true"),
                Arguments.of("privileged container", "        allowPrivilegeEscalation: false\n", "        allowPrivilegeEscalation: false\n        privileged: true\n"),
                Arguments.of("writable image", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false"),
                Arguments.of("no seccomp profile", "        seccompProfile:\n          type: RuntimeDefault\n", ""),
                Arguments.of("/tmp on disk, without the sticky bit", "        medium: Memory\n", ""),
                Arguments.of("/tmp not mounted", "          mountPath: /tmp", "          mountPath: /var/tmp"),
                Arguments.of("host pids", "  hostNetwork: true\n", "  hostNetwork: true\n  hostPID: true\n"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenEdits")
    void checksRefuseABrokenStaticPod(String what, String original, String replacement) {
        String text = Manifests.text(Manifests.STATIC_POD);
        assertThat(text).as("the edit '%s' must apply to the manifest", what).contains(original);
        String broken = text.replaceFirst(java.util.regex.Pattern.quote(original), java.util.regex.Matcher.quoteReplacement(replacement));
        Pod pod = reader.read("broken " + Manifests.STATIC_POD, broken, Pod.class);
        assertThatThrownBy(() -> UromPodChecks.check("broken " + Manifests.STATIC_POD, pod.getSpec()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("broken " + Manifests.STATIC_POD);
    }
}
