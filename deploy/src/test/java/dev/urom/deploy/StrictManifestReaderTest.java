// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class StrictManifestReaderTest {
    private static final String MISSPELT_POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: urom-service
            spec:
              containers:
                - name: urom
                  image: urom-java/urom:0.1.0
                  volumeMounts:
                    - name: urom-logs
                      mountPaht: /var/log/doca/urom
              volumes:
                - name: urom-logs
                  hostPath:
                    path: /var/log/doca/urom
            """;

    /** Objects under these keys are maps of the user's own keys, not model objects. */
    private static final Set<String> FREE_FORM_KEYS =
            Set.of("labels", "annotations", "nodeSelector", "matchLabels", "requests", "limits");

    private final StrictManifestReader reader = new StrictManifestReader();
    private final YAMLMapper yaml = new YAMLMapper();

    @Test
    void misspeltFieldIsNamedWithItsPath() {
        assertThatThrownBy(() -> reader.read("misspelt.yaml", MISSPELT_POD, Pod.class))
                .isInstanceOf(ManifestException.class)
                .hasMessage("misspelt.yaml: unknown field 'mountPaht' at spec.containers[0].volumeMounts[0]");
    }

    @Test
    void misspeltTopLevelFieldIsRefused() {
        String text = MISSPELT_POD.replace("mountPaht", "mountPath").replace("metadata:", "metdata:");
        assertThatThrownBy(() -> reader.read("top.yaml", text, Pod.class))
                .isInstanceOf(ManifestException.class)
                .hasMessage("top.yaml: unknown field 'metdata' at the top level");
    }

    @Test
    void correctlySpeltPodReads() {
        Pod pod = reader.read("fixed.yaml", MISSPELT_POD.replace("mountPaht", "mountPath"), Pod.class);
        assertThat(pod.getSpec().getContainers().get(0).getVolumeMounts().get(0).getMountPath())
                .isEqualTo("/var/log/doca/urom");
    }

    @Test
    void wrongKindIsRefused() {
        assertThatThrownBy(() ->
                        reader.read("pod-as-set.yaml", MISSPELT_POD.replace("mountPaht", "mountPath"), DaemonSet.class))
                .isInstanceOf(ManifestException.class)
                .hasMessageContaining("pod-as-set.yaml: apiVersion is 'v1', expected 'apps/v1'");
    }

    @Test
    void duplicateKeyIsRefused() {
        String text = MISSPELT_POD
                .replace("mountPaht", "mountPath")
                .replace("  name: urom-service\n", "  name: urom-service\n  name: other\n");
        assertThatThrownBy(() -> reader.read("dup.yaml", text, Pod.class))
                .isInstanceOf(ManifestException.class)
                .hasMessageStartingWith("dup.yaml: not a valid Pod: ")
                .hasMessageContaining("name");
    }

    @Property(tries = 60)
    void anUnknownFieldAnywhereInTheShippedManifestsIsCaught(@ForAll("injections") Injection injection)
            throws Exception {
        JsonNode tree = yaml.readTree(Manifests.text(injection.manifest()));
        ObjectNode target = objectsOfModel(tree, false)
                .get(injection.objectIndex() % objectsOfModel(tree, false).size());
        target.put(injection.key(), "x");
        String text = yaml.writeValueAsString(tree);
        Class<? extends io.fabric8.kubernetes.api.model.HasMetadata> type =
                injection.manifest().equals(Manifests.DAEMON_SET) ? DaemonSet.class : Pod.class;
        assertThatThrownBy(() -> reader.read(injection.manifest(), text, type))
                .isInstanceOf(ManifestException.class)
                .hasMessageContaining("unknown field '" + injection.key() + "'");
    }

    record Injection(String manifest, int objectIndex, String key) {}

    @Provide
    Arbitrary<Injection> injections() {
        return Combinators.combine(
                        Arbitraries.of(Manifests.STATIC_POD, Manifests.DAEMON_SET),
                        Arbitraries.integers().between(0, 1000),
                        Arbitraries.strings()
                                .alpha()
                                .ofMinLength(1)
                                .ofMaxLength(12)
                                .map(s -> "zz" + s))
                .as(Injection::new);
    }

    private static List<ObjectNode> objectsOfModel(JsonNode node, boolean freeForm) {
        List<ObjectNode> found = new ArrayList<>();
        if (node instanceof ObjectNode object) {
            if (!freeForm) {
                found.add(object);
            }
            object.properties()
                    .forEach(e -> found.addAll(objectsOfModel(e.getValue(), FREE_FORM_KEYS.contains(e.getKey()))));
        } else if (node instanceof ArrayNode array) {
            array.forEach(item -> found.addAll(objectsOfModel(item, false)));
        }
        return found;
    }
}
