// SPDX-License-Identifier: Apache-2.0
package dev.urom.cli.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.urom.framework.security.UnixAccounts;
import dev.urom.nativebridge.testkit.UserNamespaces;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Two hosts on this machine for the cross-host tests, joined by nothing but a network: each host is
 * a network namespace with its own loopback and one end of a veth pair ({@link #address}: 10.77.0.1
 * and 10.77.0.2 on 10.77.0.0/24), its own host name, its own System V IPC and its own empty {@code
 * /dev/shm}, so that no shared-memory segment or file of one is visible on the other (abstract Unix
 * sockets go with the network namespace). Processes started with {@link #on} run there; they still
 * share this machine's other files (the build, the Maven repository, which may lie under {@code
 * /tmp}: each host's temporary files go in a directory the caller gives it) and its process ids.
 *
 * <p>Any user can make them: everything lives in a user namespace owned by the test (made by {@code
 * unshare --user --map-root-user}), whose root the processes run as; outside it they have the
 * test's own identity. For a test that is not root the namespace's file system is this machine's
 * under a new root ({@link #NEW_ROOT}), so that the test's own tree lies below directories of the
 * namespace's root only. The namespaces are held by two holder processes and vanish once those and
 * every process started in them have ended: {@link #close} ends the holders (the caller ends its own
 * processes first). Needs {@code unshare} and {@code nsenter} (util-linux) and {@code ip}
 * (iproute2), and a kernel that lets users make user namespaces.
 *
 * <p>Not thread-safe: one test drives it.
 */
final class TwoHosts implements AutoCloseable {
    private static final long READY_SECONDS = 30;
    private static final String[] ADDRESSES = {"10.77.0.1", "10.77.0.2"};
    private static final List<String> ADMINISTRATION_TOOLS = List.of("/usr/local/sbin", "/usr/sbin", "/sbin");

    /**
     * For a test that is not root: a shell fragment, its arguments the directories of {@link
     * #directoriesAbove}, that makes the mount namespace's root a new tmpfs of the namespace's root
     * (pivot_root), where every entry of the old root is bound in its place except the chain down
     * to the test's own tree: those directories are made anew, each with the entries of the old one
     * bound in. Seen from the namespace, the machine's own files keep an owner it cannot name (the
     * overflow uid), but the test's tree and everything above it have owners the daemon trusts
     * (root of the namespace, which is the test's user), as they have for root outside. /run is
     * left empty, for the network namespaces.
     */
    private static final String NEW_ROOT = """
            new=/run; mount -t tmpfs urom-root "$new"
            mirror() { for e in "${1%/}"/* "${1%/}"/.[!.]*; do
              if [ ! -e "$e" ] && [ ! -L "$e" ] || [ "$e" = "$2" ]; then continue; fi
              if [ "$e" = /run ]; then mkdir "$new/run"
              elif [ -L "$e" ]; then ln -s "$(readlink "$e")" "$new$e"
              elif [ -d "$e" ]; then mkdir "$new$e"; mount --rbind "$e" "$new$e"
              else touch "$new$e"; mount --bind "$e" "$new$e"; fi
            done; }
            previous=/; for level in "$@"; do mkdir "$new$level"; mirror "$previous" "$level"; previous=$level; done
            mirror "$previous" ""; mkdir "$new/.old-root"; pivot_root "$new" "$new/.old-root"; cd /""";

    private final Process network;
    private final List<Process> hosts;

    private TwoHosts(Process network, List<Process> hosts) {
        this.network = network;
        this.hosts = hosts;
    }

    /**
     * Makes the user namespace (with a network namespace of its own, where the veth pair is made), the
     * two hosts' network namespaces and the veth pair between them, then a
     * holder of each host's name, IPC and {@code /dev/shm}.
     *
     * @throws AssertionError naming the step's output when a step fails
     */
    static TwoHosts create(Path ownTree) throws Exception {
        UserNamespaces.assumeAvailable();
        List<String> ownersChain = UnixAccounts.effectiveUid() == 0 ? null : directoriesAbove(ownTree);
        // ip netns add would also try to return to this machine's network namespace, which the user namespace may not
        List<String> command = new ArrayList<>(List.of(
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "--propagation",
                "private",
                "--net",
                "--",
                "sh",
                "-c",
                String.join(
                        "; ",
                        "set -e",
                        ownersChain == null ? "true" : NEW_ROOT,
                        "mount -t tmpfs urom-netns /run",
                        "mkdir /run/netns",
                        "touch /run/netns/host0 /run/netns/host1",
                        "unshare --net=/run/netns/host0 true",
                        "unshare --net=/run/netns/host1 true",
                        "ip link add veth0 type veth peer name veth1",
                        "ip link set veth0 netns host0",
                        "ip link set veth1 netns host1",
                        "ip -n host0 addr add " + ADDRESSES[0] + "/24 dev veth0",
                        "ip -n host1 addr add " + ADDRESSES[1] + "/24 dev veth1",
                        "for n in 0 1; do ip -n host$n link set lo up; ip -n host$n link set veth$n up; done",
                        "echo READY",
                        "exec cat"),
                "sh"));
        if (ownersChain != null) {
            command.addAll(ownersChain);
        }
        Process network = holder(command);
        List<Process> hosts = new ArrayList<>();
        try {
            for (int n = 0; n < 2; n++) {
                hosts.add(holder(List.of(
                        "nsenter",
                        "--target",
                        Long.toString(network.pid()),
                        "--user",
                        "--preserve-credentials",
                        "--mount",
                        "--",
                        "ip",
                        "netns",
                        "exec",
                        "host" + n,
                        "unshare",
                        "--mount",
                        "--uts",
                        "--ipc",
                        "--propagation",
                        "private",
                        "--",
                        "sh",
                        "-c",
                        String.join(
                                "; ",
                                "set -e",
                                "mount -t tmpfs urom-shm /dev/shm",
                                "chmod 1777 /dev/shm",
                                "hostname urom-host" + n,
                                "echo READY",
                                "exec cat"))));
            }
        } catch (Throwable e) {
            hosts.forEach(Process::destroyForcibly);
            network.destroyForcibly();
            throw e;
        }
        return new TwoHosts(network, hosts);
    }

    /**
     * The directories from {@code /} (excluded) down to the highest directory above {@code ownTree}
     * (or {@code ownTree} itself) that the test's user owns along with everything below it to {@code
     * ownTree}, excluded: the directories of others that {@link #NEW_ROOT} replaces by the
     * namespace root's.
     */
    private static List<String> directoriesAbove(Path ownTree) throws IOException {
        Path top = ownTree.toRealPath();
        int me = UnixAccounts.effectiveUid();
        assertThat((Integer) Files.getAttribute(top, "unix:uid"))
                .as("owner of %s", top)
                .isEqualTo(me);
        while (top.getParent() != null && (Integer) Files.getAttribute(top.getParent(), "unix:uid") == me) {
            top = top.getParent();
        }
        List<String> above = new ArrayList<>();
        for (Path dir = top.getParent(); dir != null && dir.getParent() != null; dir = dir.getParent()) {
            above.add(0, dir.toString());
        }
        return above;
    }

    /** Host {@code n}'s address on the link between the two. */
    static String address(int n) {
        return ADDRESSES[n];
    }

    /**
     * {@code command}, to be run on host {@code n} (0 or 1) as the user namespace's root: the
     * test's own uid, which the namespace maps to 0 ({@code --preserve-credentials}: the namespace
     * denies setgroups, which nsenter would otherwise call).
     */
    /**
     * {@code mainClass ARGS...} in a JVM of its own for host {@code n}: this JVM's java and class
     * path, and {@code dir/hostN/tmp} (made here) as its temporary directory.
     */
    static List<String> java(Path dir, int n, String mainClass, String... args) {
        Path tmp = dir.resolve("host" + n).resolve("tmp");
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /** The packets host {@code n} has sent on its end of the link. */
    long packetsSent(int n) throws Exception {
        RunningCommand cat = RunningCommand.start(
                on(n, List.of("cat", "/sys/class/net/veth" + n + "/statistics/tx_packets")), List.of());
        return Long.parseLong(cat.awaitExit().strip());
    }

    List<String> on(int n, List<String> command) {
        List<String> all = new ArrayList<>(List.of(
                "nsenter",
                "--target",
                Long.toString(hosts.get(n).pid()),
                "--user",
                "--preserve-credentials",
                "--mount",
                "--net",
                "--uts",
                "--"));
        all.addAll(command);
        return all;
    }

    /** Ends the holders; the namespaces go once nothing else runs in them. */
    @Override
    public void close() throws InterruptedException {
        for (Process holder : hosts) {
            end(holder);
        }
        end(network);
    }

    private static void end(Process holder) throws InterruptedException {
        try {
            holder.getOutputStream().close();
        } catch (IOException e) {
            // it ended already
        }
        if (!holder.waitFor(READY_SECONDS, TimeUnit.SECONDS)) {
            holder.destroyForcibly().waitFor(READY_SECONDS, TimeUnit.SECONDS);
        }
    }

    /** Starts a holder: a shell that prints READY once set up, then waits until its stdin ends. */
    /**
     * {@code path} with the administration tools' directories after it: {@code ip} and {@code
     * pivot_root} live in {@code /usr/sbin}, which a plain login shell of a user who is not root
     * (Debian's default PATH, {@code su}, cron, {@code env -i}) does not search.
     */
    static String withAdministrationTools(String path) {
        StringBuilder all = new StringBuilder(path);
        List<String> present = List.of(path.split(":"));
        for (String dir : ADMINISTRATION_TOOLS) {
            if (!present.contains(dir)) {
                all.append(all.length() == 0 ? "" : ":").append(dir);
            }
        }
        return all.toString();
    }

    private static Process holder(List<String> command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment()
                .put("PATH", withAdministrationTools(builder.environment().getOrDefault("PATH", "")));
        Process process = builder.start();
        BufferedReader output =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = output.readLine()) != null) {
                    if (line.equals("READY")) {
                        return true;
                    }
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add(e.toString());
            }
            return false;
        });
        boolean up;
        try {
            up = ready.get(READY_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            up = false;
        }
        if (!up) {
            process.destroyForcibly();
        }
        assertThat(up)
                .as("%s set up (its output: %s)", String.join(" ", command), lines)
                .isTrue();
        return process;
    }
}
