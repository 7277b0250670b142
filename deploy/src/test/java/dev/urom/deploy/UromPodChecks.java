package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.urom.cli.DaemonOptions;
import dev.urom.framework.discovery.PluginPath;
import dev.urom.framework.wire.ServiceAddress;
import dev.urom.service.daemon.DaemonConfig;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The checks every pod that runs the UROM daemon must pass, whatever wraps it (static pod or
 * DaemonSet template): the env, the daemon options in {@code SERVICE_ARGS}, the plugin, log and
 * hugetlbfs mounts, and the resources. Each failed check is an {@link AssertionError} naming the
 * manifest and the field. Stateless.
 */
final class UromPodChecks {
    static final String CONTAINER = "urom";
    private static final Set<String> HUGEPAGE_MEDIA = Set.of("HugePages-2Mi", "HugePages");

    private UromPodChecks() {}

    /** Runs every check on {@code spec} and returns the daemon options its container is given. */
    static DaemonOptions check(String source, PodSpec spec) {
        Container container = uromContainer(source, spec);
        assertThat(container.getImage()).as("%s: image of container %s", source, CONTAINER).isNotBlank().contains(":");
        String serviceArgs = env(source, container, "SERVICE_ARGS");
        String pluginPath = env(source, container, PluginPath.ENVIRONMENT_VARIABLE);
        DaemonOptions args = parseServiceArgs(source, serviceArgs, pluginPath);
        checkDaemonOptions(source, container, args.config());
        checkPluginMounts(source, spec, container, pluginPath);
        checkLogMount(source, spec, container, args.config().logDir());
        checkHugepages(source, spec, container);
        checkVolumesAndMountsPair(source, spec, container);
        return args;
    }

    static Container uromContainer(String source, PodSpec spec) {
        assertThat(spec.getContainers()).as("%s: containers", source).extracting(Container::getName).containsExactly(CONTAINER);
        return spec.getContainers().get(0);
    }

    static String env(String source, Container container, String name) {
        List<EnvVar> matches = container.getEnv().stream().filter(e -> name.equals(e.getName())).toList();
        assertThat(matches).as("%s: env %s of container %s (exactly once)", source, name, container.getName()).hasSize(1);
        EnvVar var = matches.get(0);
        assertThat(var.getValueFrom()).as("%s: env %s must be a literal value", source, name).isNull();
        assertThat(var.getValue()).as("%s: env %s", source, name).isNotBlank();
        return var.getValue();
    }

    private static DaemonOptions parseServiceArgs(String source, String serviceArgs, String pluginPath) {
        try {
            return DaemonOptions.parse(serviceArgs, pluginPath);
        } catch (IllegalArgumentException e) {
            return fail(source + ": SERVICE_ARGS '" + serviceArgs + "' is refused by the daemon: " + e.getMessage());
        }
    }

    private static void checkDaemonOptions(String source, Container container, DaemonConfig config) {
        assertThat(config.logLevel()).as("%s: SERVICE_ARGS -l (the guide's debug level)", source).isEqualTo(60);
        assertThat(config.maxMessageSize()).as("%s: SERVICE_ARGS -m", source)
                .isBetween(DaemonConfig.MIN_MAX_MESSAGE_SIZE, DaemonConfig.MAX_MAX_MESSAGE_SIZE).isEqualTo(4096);
        ServiceAddress listen = config.listen();
        assertThat(listen.isUnix()).as("%s: SERVICE_ARGS --listen must be TCP, reachable from outside the pod", source).isFalse();
        assertThat(listen.host()).as("%s: SERVICE_ARGS --listen host", source).isEqualTo("0.0.0.0");
        assertThat(listen.port()).as("%s: SERVICE_ARGS --listen port", source).isEqualTo(ImageLayout.SERVICE_PORT);
        assertThat(containerPorts(container)).as("%s: container ports", source).containsEntry("urom", listen.port());
    }

    private static void checkPluginMounts(String source, PodSpec spec, Container container, String pluginPath) {
        List<Path> dirs = PluginPath.parse(pluginPath).stream().map(Path::normalize).toList();
        assertThat(dirs).as("%s: %s directories (the image's plugin folders)", source, PluginPath.ENVIRONMENT_VARIABLE)
                .containsExactlyElementsOf(ImageLayout.PLUGIN_DIRS.stream().map(Path::of).toList());
        for (Path dir : dirs) {
            Volume volume = volumeMountedAt(source, spec, container, dir);
            assertThat(volume.getHostPath()).as("%s: volume %s for plugin folder %s must be a hostPath", source, volume.getName(), dir).isNotNull();
            assertThat(volume.getHostPath().getType()).as("%s: hostPath type of volume %s", source, volume.getName()).isEqualTo("DirectoryOrCreate");
            assertThat(Path.of(volume.getHostPath().getPath()).normalize()).as("%s: hostPath of volume %s", source, volume.getName()).isEqualTo(dir);
        }
    }

    private static void checkLogMount(String source, PodSpec spec, Container container, Path logDir) {
        assertThat(logDir).as("%s: the daemon's log directory", source).isEqualTo(DaemonConfig.DEFAULT_LOG_DIR);
        Volume volume = volumeMountedAt(source, spec, container, logDir);
        assertThat(volume.getHostPath()).as("%s: volume %s for the log directory must be a hostPath", source, volume.getName()).isNotNull();
        assertThat(Path.of(volume.getHostPath().getPath()).normalize()).as("%s: hostPath of volume %s", source, volume.getName()).isEqualTo(logDir);
    }

    private static void checkHugepages(String source, PodSpec spec, Container container) {
        Map<String, Quantity> requests = container.getResources().getRequests();
        Map<String, Quantity> limits = container.getResources().getLimits();
        assertThat(requests).as("%s: resources.requests", source).containsKeys(ImageLayout.HUGEPAGES_2MI, "memory");
        assertThat(limits).as("%s: resources.limits", source).containsKey(ImageLayout.HUGEPAGES_2MI);
        BigDecimal requested = Quantity.getAmountInBytes(requests.get(ImageLayout.HUGEPAGES_2MI));
        BigDecimal limited = Quantity.getAmountInBytes(limits.get(ImageLayout.HUGEPAGES_2MI));
        assertThat(requested).as("%s: %s request must equal its limit", source, ImageLayout.HUGEPAGES_2MI).isEqualByComparingTo(limited);
        assertThat(requested).as("%s: %s request", source, ImageLayout.HUGEPAGES_2MI).isPositive();
        assertThat(requested.remainder(BigDecimal.valueOf(ImageLayout.HUGEPAGE_BYTES)))
                .as("%s: %s request must be whole 2 MiB pages", source, ImageLayout.HUGEPAGES_2MI).isEqualByComparingTo(BigDecimal.ZERO);
        BigDecimal memory = Quantity.getAmountInBytes(requests.get("memory"));
        assertThat(memory).as("%s: memory request", source).isPositive();
        if (limits.containsKey("memory")) {
            assertThat(Quantity.getAmountInBytes(limits.get("memory"))).as("%s: memory limit", source).isGreaterThanOrEqualTo(memory);
        }
        Volume hugetlbfs = volumeMountedAt(source, spec, container, Path.of(ImageLayout.HUGETLBFS_MOUNT));
        assertThat(hugetlbfs.getEmptyDir()).as("%s: volume %s at %s must be an emptyDir", source, hugetlbfs.getName(), ImageLayout.HUGETLBFS_MOUNT).isNotNull();
        assertThat(hugetlbfs.getEmptyDir().getMedium()).as("%s: emptyDir medium of volume %s", source, hugetlbfs.getName()).isIn(HUGEPAGE_MEDIA);
    }

    private static void checkVolumesAndMountsPair(String source, PodSpec spec, Container container) {
        List<String> volumeNames = spec.getVolumes().stream().map(Volume::getName).toList();
        List<String> mountedNames = container.getVolumeMounts().stream().map(VolumeMount::getName).toList();
        List<String> mountPaths = container.getVolumeMounts().stream().map(m -> Path.of(m.getMountPath()).normalize().toString()).toList();
        assertThat(volumeNames).as("%s: volume names", source).doesNotHaveDuplicates();
        assertThat(mountPaths).as("%s: mount paths", source).doesNotHaveDuplicates();
        assertThat(mountedNames).as("%s: every volume mounted once, every mount naming a volume", source)
                .containsExactlyInAnyOrderElementsOf(volumeNames);
    }

    static Volume volumeMountedAt(String source, PodSpec spec, Container container, Path path) {
        Optional<VolumeMount> mount = container.getVolumeMounts().stream()
                .filter(m -> Path.of(m.getMountPath()).normalize().equals(path.normalize()))
                .findFirst();
        assertThat(mount).as("%s: a volumeMount at %s", source, path).isPresent();
        Optional<Volume> volume = spec.getVolumes().stream().filter(v -> v.getName().equals(mount.get().getName())).findFirst();
        assertThat(volume).as("%s: volume %s mounted at %s", source, mount.get().getName(), path).isPresent();
        return volume.get();
    }

    static Map<String, Integer> containerPorts(Container container) {
        return container.getPorts().stream()
                .filter(p -> p.getName() != null)
                .collect(java.util.stream.Collectors.toMap(p -> p.getName(), p -> p.getContainerPort()));
    }
}
