// SPDX-License-Identifier: Apache-2.0
package dev.urom.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.urom.cli.DaemonOptions;
import dev.urom.framework.discovery.PluginPath;
import dev.urom.service.daemon.DaemonConfig;
import dev.urom.service.daemon.DaemonSecurity;
import dev.urom.service.daemon.UidRange;
import dev.urom.wire.ServiceAddress;
import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checks every pod that runs the UROM daemon must pass, whatever wraps it (static pod or
 * DaemonSet template): the env, the daemon options in {@code SERVICE_ARGS}, the plugin, log,
 * key, temporary and hugetlbfs mounts, the resources, and the security settings (keys required,
 * each principal's workers as a uid of its own and never root, the daemon's capabilities, a
 * read-only image). Each failed check is an {@link AssertionError} naming the manifest and the
 * field. Stateless.
 */
final class UromPodChecks {
    static final String CONTAINER = "urom";
    private static final Set<String> HUGEPAGE_MEDIA = Set.of("HugePages-2Mi", "HugePages");
    /**
     * The capabilities the daemon keeps, each with what needs it (docs/deploy.md, "The pod's
     * security settings"); every other one is dropped. The daemon runs as root because only root
     * keeps capabilities that a container adds: a container of another uid gets them in its
     * bounding set only.
     */
    static final Map<String, String> DAEMON_CAPABILITIES = Collections.unmodifiableMap(new TreeMap<>(Map.of(
            "SETUID", "urom-launch's setresuid to the worker's uid",
            "SETGID", "urom-launch's setgroups and setresgid to the worker's gid and groups",
            "CHOWN", "giving each worker its private directory (owner and group the worker's)",
            "DAC_OVERRIDE",
                    "entering each worker's 0700 directory (urom-launch's chdir before the drop), copying the worker's crash report and "
                            + "class-data archive out of it, and removing it (DAC_READ_SEARCH and FOWNER cannot remove it)",
            "KILL", "stopping workers, which run as other uids")));
    /** Daemon options that open what the manifests must keep closed. */
    private static final List<String> INSECURE_OPTIONS =
            List.of("--insecure-tcp", "--allow-insecure-plugin-dirs", "--dumpable-workers");
    /** Owner read only: root owns a Secret's files, and nobody else may read a key. */
    static final int KEY_FILE_MODE = 0400;
    /**
     * The highest id a node's own accounts may have: system and login accounts ({@code useradd}'s
     * default {@code UID_MAX} is 60000), systemd's dynamic users (61184-65519) and nobody (65534).
     * A worker uid range must lie above it.
     */
    static final long NODE_ACCOUNT_IDS_END = 65535;

    private UromPodChecks() {}

    /** Runs every check on {@code spec} and returns the daemon options its container is given. */
    static DaemonOptions check(String source, PodSpec spec) {
        Container container = uromContainer(source, spec);
        assertThat(container.getImage())
                .as("%s: image of container %s", source, CONTAINER)
                .isNotBlank()
                .contains(":");
        String serviceArgs = env(source, container, "SERVICE_ARGS");
        String pluginPath = env(source, container, PluginPath.ENVIRONMENT_VARIABLE);
        DaemonOptions args = parseServiceArgs(source, serviceArgs, pluginPath);
        checkDaemonOptions(source, container, args.config());
        checkNoInsecureOption(source, container, serviceArgs, args.config().security());
        checkWorkerIds(source, args.config().security());
        checkPluginMounts(source, spec, container, pluginPath);
        checkLogMount(source, spec, container, args.config().logDir());
        checkKeyMount(source, spec, container, args.config().security().authKeys());
        checkSecurityContext(source, spec, container);
        checkTmpMount(source, spec, container);
        checkHugepages(source, spec, container);
        checkVolumesAndMountsPair(source, spec, container);
        return args;
    }

    static Container uromContainer(String source, PodSpec spec) {
        assertThat(spec.getContainers())
                .as("%s: containers", source)
                .extracting(Container::getName)
                .containsExactly(CONTAINER);
        return spec.getContainers().get(0);
    }

    static String env(String source, Container container, String name) {
        List<EnvVar> matches = container.getEnv().stream()
                .filter(e -> name.equals(e.getName()))
                .toList();
        assertThat(matches)
                .as("%s: env %s of container %s (exactly once)", source, name, container.getName())
                .hasSize(1);
        EnvVar var = matches.get(0);
        assertThat(var.getValueFrom())
                .as("%s: env %s must be a literal value", source, name)
                .isNull();
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
        assertThat(config.logLevel())
                .as("%s: SERVICE_ARGS -l (the guide's debug level)", source)
                .isEqualTo(60);
        assertThat(config.maxMessageSize())
                .as("%s: SERVICE_ARGS -m", source)
                .isBetween(DaemonConfig.MIN_MAX_MESSAGE_SIZE, DaemonConfig.MAX_MAX_MESSAGE_SIZE)
                .isEqualTo(4096);
        ServiceAddress listen = config.listen();
        assertThat(listen.isUnix())
                .as("%s: SERVICE_ARGS --listen must be TCP, reachable from outside the pod", source)
                .isFalse();
        assertThat(listen.host()).as("%s: SERVICE_ARGS --listen host", source).isEqualTo("0.0.0.0");
        assertThat(listen.port()).as("%s: SERVICE_ARGS --listen port", source).isEqualTo(ImageLayout.SERVICE_PORT);
        assertThat(containerPorts(container)).as("%s: container ports", source).containsEntry("urom", listen.port());
    }

    /** Keys on TCP, and nothing that lets a host or a plugin in without them, in SERVICE_ARGS or the container's own arguments. */
    private static void checkNoInsecureOption(
            String source, Container container, String serviceArgs, DaemonSecurity security) {
        List<String> words = Arrays.asList(serviceArgs.trim().split("\\s+"));
        for (String option : INSECURE_OPTIONS) {
            assertThat(words)
                    .as("%s: SERVICE_ARGS must not hold %s", source, option)
                    .doesNotContain(option);
        }
        assertThat(security.insecureTcp())
                .as("%s: SERVICE_ARGS --insecure-tcp", source)
                .isFalse();
        assertThat(security.allowInsecurePluginDirs())
                .as("%s: SERVICE_ARGS --allow-insecure-plugin-dirs", source)
                .isFalse();
        assertThat(security.dumpableWorkers())
                .as("%s: SERVICE_ARGS --dumpable-workers", source)
                .isFalse();
        assertThat(security.authKeys())
                .as("%s: SERVICE_ARGS --auth-keys (hosts on TCP must prove a key)", source)
                .isNotNull();
        assertThat(container.getCommand())
                .as("%s: command of container %s (the image's entrypoint runs the daemon)", source, CONTAINER)
                .isEmpty();
        assertThat(container.getArgs())
                .as("%s: args of container %s (the daemon's options go in SERVICE_ARGS)", source, CONTAINER)
                .isEmpty();
    }

    /**
     * Workers per principal, each key's as a uid of its own from an explicit {@code
     * --worker-uid-range} that holds no id an account of the node may have; never {@code
     * --worker-user}, which puts every principal's workers in one uid. The range is written out
     * because the daemon sees only the image's accounts: it cannot skip the node's, so the
     * operator must see and own the choice.
     */
    private static void checkWorkerIds(String source, DaemonSecurity security) {
        assertThat(security.workerUser())
                .as(
                        "%s: SERVICE_ARGS --worker-user %s is weaker: all principals share a uid, so that one principal's worker can signal "
                                + "the others' and reach their files; leave it out (each principal's workers get a uid of their own)",
                        source, security.workerUser())
                .isNull();
        UidRange range = security.workerUidRange();
        assertThat(range)
                .as(
                        "%s: SERVICE_ARGS --worker-uid-range (written out: the daemon cannot see which ids the node's accounts use)",
                        source)
                .isNotNull();
        assertThat(range.first())
                .as(
                        "%s: SERVICE_ARGS --worker-uid-range %s must lie above %d (root, the node's system and login accounts, "
                                + "nobody, systemd's dynamic users), which the daemon in the image cannot see",
                        source, range, NODE_ACCOUNT_IDS_END)
                .isGreaterThan(NODE_ACCOUNT_IDS_END);
        assertThat(security.workerGroups())
                .as("%s: SERVICE_ARGS --worker-groups (not root's group)", source)
                .doesNotContain("0", "root");
    }

    /**
     * The key directory: mounted read-only, from a Secret whose files only their owner (root) may
     * read, or, for a static pod (which cannot use a Secret), from a host directory that must exist.
     */
    private static void checkKeyMount(String source, PodSpec spec, Container container, Path keys) {
        assertThat(keys).as("%s: SERVICE_ARGS --auth-keys", source).isEqualTo(Path.of(ImageLayout.KEYS_DIR));
        VolumeMount mount = mountAt(source, container, keys);
        assertThat(mount.getReadOnly())
                .as("%s: volumeMount %s at %s must be readOnly", source, mount.getName(), keys)
                .isTrue();
        Volume volume = volumeMountedAt(source, spec, container, keys);
        SecretVolumeSource secret = volume.getSecret();
        if (secret != null) {
            assertThat(secret.getSecretName())
                    .as("%s: secretName of volume %s", source, volume.getName())
                    .isNotBlank();
            assertThat(secret.getOptional())
                    .as("%s: volume %s must not be optional (no keys, no hosts)", source, volume.getName())
                    .isNotEqualTo(Boolean.TRUE);
            assertThat(secret.getDefaultMode())
                    .as("%s: defaultMode of volume %s (octal %04o)", source, volume.getName(), KEY_FILE_MODE)
                    .isEqualTo(KEY_FILE_MODE);
            for (KeyToPath item : secret.getItems()) {
                assertThat(item.getMode())
                        .as("%s: mode of item %s of volume %s", source, item.getKey(), volume.getName())
                        .isIn(null, KEY_FILE_MODE);
            }
            Long fsGroup = spec.getSecurityContext() == null
                    ? null
                    : spec.getSecurityContext().getFsGroup();
            assertThat(fsGroup)
                    .as("%s: securityContext.fsGroup (it would make the key files readable by that group)", source)
                    .isNull();
        } else {
            assertThat(volume.getHostPath())
                    .as("%s: volume %s for the keys must be a Secret or a hostPath", source, volume.getName())
                    .isNotNull();
            assertThat(volume.getHostPath().getType())
                    .as("%s: hostPath type of volume %s (the directory must exist)", source, volume.getName())
                    .isEqualTo("Directory");
            assertThat(Path.of(volume.getHostPath().getPath()).normalize())
                    .as("%s: hostPath of volume %s", source, volume.getName())
                    .isEqualTo(keys);
        }
    }

    /** Root with {@link #DAEMON_CAPABILITIES} only, no privilege escalation, the runtime's seccomp profile, a read-only image. */
    private static void checkSecurityContext(String source, PodSpec spec, Container container) {
        assertThat(spec.getHostPID()).as("%s: hostPID", source).isNotEqualTo(Boolean.TRUE);
        assertThat(spec.getHostIPC()).as("%s: hostIPC", source).isNotEqualTo(Boolean.TRUE);
        SecurityContext context = container.getSecurityContext();
        assertThat(context)
                .as("%s: securityContext of container %s", source, CONTAINER)
                .isNotNull();
        assertThat(context.getRunAsUser())
                .as("%s: securityContext.runAsUser (the daemon drops workers to another user)", source)
                .isEqualTo(0L);
        assertThat(context.getPrivileged())
                .as("%s: securityContext.privileged", source)
                .isNotEqualTo(Boolean.TRUE);
        assertThat(context.getAllowPrivilegeEscalation())
                .as("%s: securityContext.allowPrivilegeEscalation", source)
                .isFalse();
        assertThat(context.getReadOnlyRootFilesystem())
                .as("%s: securityContext.readOnlyRootFilesystem", source)
                .isTrue();
        assertThat(context.getSeccompProfile())
                .as("%s: securityContext.seccompProfile", source)
                .isNotNull();
        assertThat(context.getSeccompProfile().getType())
                .as("%s: securityContext.seccompProfile.type", source)
                .isEqualTo("RuntimeDefault");
        Capabilities capabilities = context.getCapabilities();
        assertThat(capabilities).as("%s: securityContext.capabilities", source).isNotNull();
        assertThat(capabilities.getDrop())
                .as("%s: securityContext.capabilities.drop", source)
                .containsExactly("ALL");
        assertThat(capabilities.getAdd())
                .as("%s: securityContext.capabilities.add (each needed by the daemon: %s)", source, DAEMON_CAPABILITIES)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(DAEMON_CAPABILITIES.keySet());
    }

    /**
     * The writable temporary directory of a read-only image: a tmpfs ({@code medium: Memory}, mode
     * 1777). A disk emptyDir is 0777 without the sticky bit: a worker could rename the daemon's
     * directories in it and put its own in their place.
     */
    private static void checkTmpMount(String source, PodSpec spec, Container container) {
        Volume tmp = volumeMountedAt(source, spec, container, Path.of(ImageLayout.TMP_DIR));
        assertThat(mountAt(source, container, Path.of(ImageLayout.TMP_DIR)).getReadOnly())
                .as("%s: volumeMount at %s", source, ImageLayout.TMP_DIR)
                .isNotEqualTo(Boolean.TRUE);
        assertThat(tmp.getEmptyDir())
                .as("%s: volume %s at %s must be an emptyDir", source, tmp.getName(), ImageLayout.TMP_DIR)
                .isNotNull();
        assertThat(tmp.getEmptyDir().getMedium())
                .as("%s: emptyDir medium of volume %s (a tmpfs has the sticky bit)", source, tmp.getName())
                .isEqualTo("Memory");
        assertThat(tmp.getEmptyDir().getSizeLimit())
                .as("%s: emptyDir sizeLimit of volume %s (it takes the pod's memory)", source, tmp.getName())
                .isNotNull();
    }

    private static void checkPluginMounts(String source, PodSpec spec, Container container, String pluginPath) {
        List<Path> dirs =
                PluginPath.parse(pluginPath).stream().map(Path::normalize).toList();
        assertThat(dirs)
                .as("%s: %s directories (the image's plugin folders)", source, PluginPath.ENVIRONMENT_VARIABLE)
                .containsExactlyElementsOf(
                        ImageLayout.PLUGIN_DIRS.stream().map(Path::of).toList());
        for (Path dir : dirs) {
            Volume volume = volumeMountedAt(source, spec, container, dir);
            assertThat(volume.getHostPath())
                    .as("%s: volume %s for plugin folder %s must be a hostPath", source, volume.getName(), dir)
                    .isNotNull();
            assertThat(volume.getHostPath().getType())
                    .as("%s: hostPath type of volume %s", source, volume.getName())
                    .isEqualTo("DirectoryOrCreate");
            assertThat(Path.of(volume.getHostPath().getPath()).normalize())
                    .as("%s: hostPath of volume %s", source, volume.getName())
                    .isEqualTo(dir);
            assertThat(mountAt(source, container, dir).getReadOnly())
                    .as("%s: volumeMount %s at %s must be readOnly", source, volume.getName(), dir)
                    .isTrue();
        }
    }

    private static void checkLogMount(String source, PodSpec spec, Container container, Path logDir) {
        assertThat(logDir).as("%s: the daemon's log directory", source).isEqualTo(DaemonConfig.DEFAULT_LOG_DIR);
        Volume volume = volumeMountedAt(source, spec, container, logDir);
        assertThat(volume.getHostPath())
                .as("%s: volume %s for the log directory must be a hostPath", source, volume.getName())
                .isNotNull();
        assertThat(Path.of(volume.getHostPath().getPath()).normalize())
                .as("%s: hostPath of volume %s", source, volume.getName())
                .isEqualTo(logDir);
        assertThat(mountAt(source, container, logDir).getReadOnly())
                .as(
                        "%s: volumeMount %s at %s (the daemon writes its and the workers' logs)",
                        source, volume.getName(), logDir)
                .isNotEqualTo(Boolean.TRUE);
    }

    private static void checkHugepages(String source, PodSpec spec, Container container) {
        Map<String, Quantity> requests = container.getResources().getRequests();
        Map<String, Quantity> limits = container.getResources().getLimits();
        assertThat(requests).as("%s: resources.requests", source).containsKeys(ImageLayout.HUGEPAGES_2MI, "memory");
        assertThat(limits).as("%s: resources.limits", source).containsKey(ImageLayout.HUGEPAGES_2MI);
        BigDecimal requested = Quantity.getAmountInBytes(requests.get(ImageLayout.HUGEPAGES_2MI));
        BigDecimal limited = Quantity.getAmountInBytes(limits.get(ImageLayout.HUGEPAGES_2MI));
        assertThat(requested)
                .as("%s: %s request must equal its limit", source, ImageLayout.HUGEPAGES_2MI)
                .isEqualByComparingTo(limited);
        assertThat(requested)
                .as("%s: %s request", source, ImageLayout.HUGEPAGES_2MI)
                .isPositive();
        assertThat(requested.remainder(BigDecimal.valueOf(ImageLayout.HUGEPAGE_BYTES)))
                .as("%s: %s request must be whole 2 MiB pages", source, ImageLayout.HUGEPAGES_2MI)
                .isEqualByComparingTo(BigDecimal.ZERO);
        BigDecimal memory = Quantity.getAmountInBytes(requests.get("memory"));
        assertThat(memory).as("%s: memory request", source).isPositive();
        if (limits.containsKey("memory")) {
            assertThat(Quantity.getAmountInBytes(limits.get("memory")))
                    .as("%s: memory limit", source)
                    .isGreaterThanOrEqualTo(memory);
        }
        Volume hugetlbfs = volumeMountedAt(source, spec, container, Path.of(ImageLayout.HUGETLBFS_MOUNT));
        assertThat(hugetlbfs.getEmptyDir())
                .as("%s: volume %s at %s must be an emptyDir", source, hugetlbfs.getName(), ImageLayout.HUGETLBFS_MOUNT)
                .isNotNull();
        assertThat(hugetlbfs.getEmptyDir().getMedium())
                .as("%s: emptyDir medium of volume %s", source, hugetlbfs.getName())
                .isIn(HUGEPAGE_MEDIA);
    }

    private static void checkVolumesAndMountsPair(String source, PodSpec spec, Container container) {
        List<String> volumeNames =
                spec.getVolumes().stream().map(Volume::getName).toList();
        List<String> mountedNames =
                container.getVolumeMounts().stream().map(VolumeMount::getName).toList();
        List<String> mountPaths = container.getVolumeMounts().stream()
                .map(m -> Path.of(m.getMountPath()).normalize().toString())
                .toList();
        assertThat(volumeNames).as("%s: volume names", source).doesNotHaveDuplicates();
        assertThat(mountPaths).as("%s: mount paths", source).doesNotHaveDuplicates();
        assertThat(mountedNames)
                .as("%s: every volume mounted once, every mount naming a volume", source)
                .containsExactlyInAnyOrderElementsOf(volumeNames);
    }

    static Volume volumeMountedAt(String source, PodSpec spec, Container container, Path path) {
        VolumeMount mount = mountAt(source, container, path);
        Optional<Volume> volume = spec.getVolumes().stream()
                .filter(v -> v.getName().equals(mount.getName()))
                .findFirst();
        assertThat(volume)
                .as("%s: volume %s mounted at %s", source, mount.getName(), path)
                .isPresent();
        return volume.get();
    }

    static VolumeMount mountAt(String source, Container container, Path path) {
        Optional<VolumeMount> mount = container.getVolumeMounts().stream()
                .filter(m -> Path.of(m.getMountPath()).normalize().equals(path.normalize()))
                .findFirst();
        assertThat(mount).as("%s: a volumeMount at %s", source, path).isPresent();
        return mount.get();
    }

    static Map<String, Integer> containerPorts(Container container) {
        return container.getPorts().stream()
                .filter(p -> p.getName() != null)
                .collect(java.util.stream.Collectors.toMap(p -> p.getName(), p -> p.getContainerPort()));
    }
}
