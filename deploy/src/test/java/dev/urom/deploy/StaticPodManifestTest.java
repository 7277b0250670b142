// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.urom.cli.DaemonOptions;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.service.daemon.UidRange;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StaticPodManifestTest {
    /** The manifests' worker uid range, as SERVICE_ARGS spells it. */
    private static final String RANGE = "--worker-uid-range 1879048192-1879113727";

    private final StrictManifestReader reader = new StrictManifestReader();

    @Test
    void everyManifestInTheFolderReadsStrictly() {
        assertThat(Manifests.all())
                .containsExactlyInAnyOrder(Manifests.STATIC_POD, Manifests.DAEMON_SET, Manifests.NETWORK_POLICY);
    }

    @Test
    void staticPodPassesTheDaemonChecks() {
        Pod pod = reader.read(Manifests.STATIC_POD, Manifests.text(Manifests.STATIC_POD), Pod.class);
        DaemonOptions args = UromPodChecks.check(Manifests.STATIC_POD, pod.getSpec());
        assertThat(args.config().maxMessageSize()).isEqualTo(4096);
        assertThat(pod.getSpec().getHostNetwork())
                .as("hostNetwork: hosts reach the daemon at the device's address")
                .isTrue();
    }

    @Test
    void workersRunAsAUidOfTheirPrincipalsFromTheDefaultRange() {
        Pod pod = reader.read(Manifests.STATIC_POD, Manifests.text(Manifests.STATIC_POD), Pod.class);
        DaemonSecurity security = UromPodChecks.check(Manifests.STATIC_POD, pod.getSpec())
                .config()
                .security();
        assertThat(security.workerUser())
                .as("--worker-user (per principal: none)")
                .isNull();
        assertThat(security.workerUidRange())
                .as("--worker-uid-range, written out: the daemon's default")
                .isEqualTo(UidRange.DEFAULT);
        assertThat(security.workerGroups()).as("--worker-groups").isEmpty();
    }

    /** Each edit breaks one thing the checks stand for; the checks must notice. */
    static Stream<Arguments> brokenEdits() {
        return Stream.of(
                Arguments.of(
                        "hugepages limit differs from request",
                        "          hugepages-2Mi: 512Mi\n        limits:",
                        "          hugepages-2Mi: 256Mi\n        limits:"),
                Arguments.of("hugepages not whole pages", "hugepages-2Mi: 512Mi", "hugepages-2Mi: 3Mi"),
                Arguments.of("no memory request", "        requests:\n          memory: 2Gi\n", "        requests:\n"),
                Arguments.of(
                        "plugin folder not mounted",
                        "          mountPath: /opt/urom/plugins/worker_sandbox",
                        "          mountPath: /opt/urom/sandbox"),
                Arguments.of(
                        "plugin folder not a hostPath",
                        "      hostPath:\n        path: /opt/urom/plugins/worker_graph\n        type: DirectoryOrCreate",
                        "      emptyDir: {}"),
                Arguments.of(
                        "plugin folder outside the image layout",
                        "value: \"/opt/urom/plugins/worker_graph;",
                        "value: \"/opt/mellanox/plugins/worker_graph;"),
                Arguments.of(
                        "log dir mounted elsewhere",
                        "          mountPath: /var/log/doca/urom",
                        "          mountPath: /var/log/urom"),
                Arguments.of("hugetlbfs not of medium HugePages", "medium: HugePages-2Mi", "medium: Memory"),
                Arguments.of("max message size below the minimum", "-m 4096", "-m 16"),
                Arguments.of("unknown daemon option", "-l 60", "-l 60 --verbose 1"),
                Arguments.of(
                        "listen on a unix socket", "--listen tcp:0.0.0.0:7300", "--listen unix:/run/urom/urom.sock"),
                Arguments.of("SERVICE_ARGS missing", "- name: SERVICE_ARGS", "- name: SERVICE_ARG"),
                Arguments.of("TCP without keys", " --auth-keys /etc/urom/keys", ""),
                Arguments.of("TCP hosts let in without a key", "-l 60", "-l 60 --insecure-tcp"),
                Arguments.of("plugins from writable folders", "-l 60", "-l 60 --allow-insecure-plugin-dirs"),
                Arguments.of(
                        "--insecure-tcp in the container's args",
                        "      ports:\n",
                        "      args: [\"--insecure-tcp\"]\n      ports:\n"),
                Arguments.of(
                        "keys elsewhere than their mount", "--auth-keys /etc/urom/keys", "--auth-keys /etc/urom/other"),
                Arguments.of(
                        "keys mounted writable",
                        "          mountPath: /etc/urom/keys\n          readOnly: true",
                        "          mountPath: /etc/urom/keys"),
                Arguments.of(
                        "key folder created when missing",
                        "        path: /etc/urom/keys\n        type: Directory",
                        "        path: /etc/urom/keys\n        type: DirectoryOrCreate"),
                Arguments.of(
                        "plugin folder mounted writable",
                        "          mountPath: /opt/urom/plugins/worker_graph\n          readOnly: true",
                        "          mountPath: /opt/urom/plugins/worker_graph"),
                Arguments.of(
                        "log folder mounted read-only",
                        "          mountPath: /var/log/doca/urom\n",
                        "          mountPath: /var/log/doca/urom\n          readOnly: true\n"),
                Arguments.of(
                        "a capability beyond the daemon's",
                        "            - SETUID\n",
                        "            - SETUID\n            - SYS_ADMIN\n"),
                Arguments.of("a needed capability missing", "            - KILL\n", ""),
                Arguments.of(
                        "capabilities not all dropped",
                        "          drop:\n            - ALL\n",
                        "          drop:\n            - NET_RAW\n"),
                Arguments.of(
                        "privilege escalation allowed",
                        "allowPrivilegeEscalation: false",
                        "allowPrivilegeEscalation: true"),
                Arguments.of(
                        "privileged container",
                        "        allowPrivilegeEscalation: false\n",
                        "        allowPrivilegeEscalation: false\n        privileged: true\n"),
                Arguments.of("writable image", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false"),
                Arguments.of("no seccomp profile", "        seccompProfile:\n          type: RuntimeDefault\n", ""),
                Arguments.of("/tmp on disk, without the sticky bit", "        medium: Memory\n", ""),
                Arguments.of("/tmp not mounted", "          mountPath: /tmp", "          mountPath: /var/tmp"),
                Arguments.of("host pids", "  hostNetwork: true\n", "  hostNetwork: true\n  hostPID: true\n"));
    }

    /** Each edit gives workers an identity the checks stand against, and the checks must say which, with this in their message. */
    static Stream<Arguments> workerIdEdits() {
        String weaker = " is weaker: all principals share a uid";
        return Stream.of(
                Arguments.of("workers as root", "--worker-user root", "--worker-user root" + weaker),
                Arguments.of("workers as uid 0", "--worker-user 0:10001", "--worker-user 0:10001" + weaker),
                Arguments.of("workers in group 0", "--worker-user 10001:0", "--worker-user 10001:0" + weaker),
                Arguments.of(
                        "every principal's workers as one uid",
                        "--worker-user 10001:10001",
                        "--worker-user 10001:10001" + weaker),
                Arguments.of(
                        "one uid for all beside the range",
                        RANGE + " --worker-user 10001:10001",
                        "--worker-user 10001:10001" + weaker),
                Arguments.of("the worker uid range left to the default", "", "--worker-uid-range (written out"),
                Arguments.of(
                        "a worker uid range holding root",
                        "--worker-uid-range 0-65535",
                        "--worker-uid-range 0-65535 is not a range of uids"),
                Arguments.of(
                        "a worker uid range holding the node's accounts",
                        "--worker-uid-range 1000-60000",
                        "must lie above 65535"),
                Arguments.of(
                        "a worker uid range holding nobody", "--worker-uid-range 65534-131071", "must lie above 65535"),
                Arguments.of(
                        "workers in root's group",
                        RANGE + " --worker-groups root",
                        "--worker-groups (not root's group)"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("workerIdEdits")
    void checksRefuseWorkerIdsOtherThanEachPrincipalsOwn(String what, String replacement, String message) {
        String text = Manifests.text(Manifests.STATIC_POD);
        assertThat(text).as("the manifest's SERVICE_ARGS give %s", RANGE).contains(" " + RANGE + "\"");
        String broken = text.replace(" " + RANGE + "\"", (replacement.isEmpty() ? "" : " " + replacement) + "\"");
        Pod pod = reader.read("broken " + Manifests.STATIC_POD, broken, Pod.class);
        assertThatThrownBy(() -> UromPodChecks.check("broken " + Manifests.STATIC_POD, pod.getSpec()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("broken " + Manifests.STATIC_POD)
                .hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("brokenEdits")
    void checksRefuseABrokenStaticPod(String what, String original, String replacement) {
        String text = Manifests.text(Manifests.STATIC_POD);
        assertThat(text).as("the edit '%s' must apply to the manifest", what).contains(original);
        String broken = text.replaceFirst(
                java.util.regex.Pattern.quote(original), java.util.regex.Matcher.quoteReplacement(replacement));
        Pod pod = reader.read("broken " + Manifests.STATIC_POD, broken, Pod.class);
        assertThatThrownBy(() -> UromPodChecks.check("broken " + Manifests.STATIC_POD, pod.getSpec()))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("broken " + Manifests.STATIC_POD);
    }
}
