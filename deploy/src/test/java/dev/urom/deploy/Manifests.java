// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where the manifests under test are: the folder named by the system property {@code urom.k8s.dir}
 * (the build sets it to the module's {@code k8s/}). Stateless; throws {@link ManifestException}
 * when the folder or a file cannot be read.
 */
final class Manifests {
    static final String STATIC_POD = "urom-static-pod.yaml";
    static final String DAEMON_SET = "urom-daemonset.yaml";
    static final String NETWORK_POLICY = "urom-networkpolicy.yaml";

    private Manifests() {}

    static Path folder() {
        String dir = System.getProperty("urom.k8s.dir");
        if (dir == null || dir.isBlank()) {
            throw new ManifestException("system property urom.k8s.dir is not set: run the tests through Maven");
        }
        return Path.of(dir);
    }

    static String text(String fileName) {
        Path file = folder().resolve(fileName);
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new ManifestException(file + ": cannot be read: " + e.getMessage(), e);
        }
    }

    /** Every {@code .yaml} file of the folder, by name. */
    static List<String> all() {
        try (Stream<Path> files = Files.list(folder())) {
            return files.map(f -> f.getFileName().toString())
                    .filter(n -> n.endsWith(".yaml"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new ManifestException(folder() + ": cannot be listed: " + e.getMessage(), e);
        }
    }
}
