// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import java.util.List;

/**
 * What the manifests rely on in the image and in the daemon: the plugin folders the image ships,
 * the hugetlbfs mount point, the service and health ports and the health paths, where the keys are
 * mounted, the image's temporary directory (the JVM's {@code java.io.tmpdir}), and the ports the
 * kernel gives workers. The health port and paths are those of the daemon's {@code --http-port}
 * option (health and metrics work).
 */
final class ImageLayout {
    static final List<String> PLUGIN_DIRS = List.of(
            "/opt/urom/plugins/worker_graph", "/opt/urom/plugins/worker_sandbox", "/opt/urom/plugins/worker_coll");
    static final String HUGETLBFS_MOUNT = "/mnt/huge";
    static final String HUGEPAGES_2MI = "hugepages-2Mi";
    static final long HUGEPAGE_BYTES = 2L << 20;
    static final int SERVICE_PORT = 7300;
    static final int HEALTH_PORT = 7301;
    static final String LIVENESS_PATH = "/healthz";
    static final String READINESS_PATH = "/readyz";
    static final String METRICS_PATH = "/metrics";
    static final String KEYS_DIR = "/etc/urom/keys";
    static final String TMP_DIR = "/tmp";
    /** Linux's default {@code net.ipv4.ip_local_port_range}: where a worker's port (port 0 at bind) comes from. */
    static final int WORKER_PORTS_FIRST = 32768;

    static final int WORKER_PORTS_LAST = 60999;

    private ImageLayout() {}
}
