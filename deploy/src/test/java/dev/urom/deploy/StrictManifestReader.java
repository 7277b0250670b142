// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Reads one YAML manifest into its fabric8 Kubernetes model and refuses anything the model does not
 * know. Jackson's unknown-property check alone does not do it: fabric8 classes keep unknown fields
 * in {@code additionalProperties}, so after parsing, every model object in the tree is visited and a
 * non-empty {@code additionalProperties} is an error naming the manifest, the path and the field.
 * Duplicate keys, a wrong {@code apiVersion} or {@code kind}, and YAML errors are refused too.
 *
 * <p>Thread-safe (the mapper is configured once and never changed). Throws {@link
 * ManifestException} only.
 */
final class StrictManifestReader {
    private static final String MODEL_PACKAGE = "io.fabric8.kubernetes";

    private final ObjectMapper mapper = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .build();

    /**
     * @param source what the text is, for messages (a file name)
     * @param type the model class the manifest must be ({@code Pod.class}, {@code DaemonSet.class})
     */
    <T extends HasMetadata> T read(String source, String text, Class<T> type) {
        T resource;
        try {
            resource = mapper.readValue(text, type);
        } catch (JsonProcessingException e) {
            throw new ManifestException(
                    source + ": not a valid " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
        if (resource == null) {
            throw new ManifestException(source + ": is empty");
        }
        String expectedApiVersion = HasMetadata.getApiVersion(type);
        String expectedKind = HasMetadata.getKind(type);
        if (!expectedApiVersion.equals(resource.getApiVersion())) {
            throw new ManifestException(source + ": apiVersion is '" + resource.getApiVersion() + "', expected '"
                    + expectedApiVersion + "'");
        }
        if (!expectedKind.equals(resource.getKind())) {
            throw new ManifestException(
                    source + ": kind is '" + resource.getKind() + "', expected '" + expectedKind + "'");
        }
        List<String> unknown = new ArrayList<>();
        collectUnknownFields(resource, "", unknown);
        if (!unknown.isEmpty()) {
            throw new ManifestException(
                    source + ": unknown field" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown));
        }
        return resource;
    }

    private static void collectUnknownFields(Object value, String path, List<String> unknown) {
        if (value instanceof Collection<?> items) {
            int index = 0;
            for (Object item : items) {
                collectUnknownFields(item, path + "[" + index++ + "]", unknown);
            }
        } else if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                collectUnknownFields(entry.getValue(), path + "[" + entry.getKey() + "]", unknown);
            }
        } else if (value != null && value.getClass().getName().startsWith(MODEL_PACKAGE)) {
            collectModelObject(value, path, unknown);
        }
    }

    private static void collectModelObject(Object model, String path, List<String> unknown) {
        List<Method> getters = Arrays.stream(model.getClass().getMethods())
                .filter(StrictManifestReader::isPropertyGetter)
                .sorted(Comparator.comparing(Method::getName))
                .toList();
        for (Method getter : getters) {
            Object property = invoke(getter, model);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (property instanceof Map<?, ?> extra) {
                    extra.keySet()
                            .forEach(key ->
                                    unknown.add("'" + key + "' at " + (path.isEmpty() ? "the top level" : path)));
                }
            } else {
                String name = Character.toLowerCase(getter.getName().charAt(3))
                        + getter.getName().substring(4);
                collectUnknownFields(property, path.isEmpty() ? name : path + "." + name, unknown);
            }
        }
    }

    private static boolean isPropertyGetter(Method method) {
        return method.getName().startsWith("get")
                && method.getName().length() > 3
                && method.getParameterCount() == 0
                && !Modifier.isStatic(method.getModifiers())
                && method.getDeclaringClass() != Object.class;
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new ManifestException(
                    "cannot read " + getter.getDeclaringClass().getSimpleName() + "." + getter.getName() + ": " + e, e);
        }
    }
}
