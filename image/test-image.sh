#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test-image.sh: builds the service's image with Jib on a locally made base and runs its entrypoint
# without a container engine, the way deploy/k8s/urom-daemonset.yaml runs it, then checks from
# outside that the daemon answers hosts that prove a key, and only those, and that its workers do
# not run as root.
#
#   1. make-local-base.sh: a base image tar (this machine's Java 17 + /bin/sh + their libraries),
#      unless target/local-base.tar exists (delete it to remake it);
#   2. mvn -f image/pom.xml -Pimage package -Dimage.base=tar://.../local-base.tar (offline when
#      the Jib plugin is cached, online once otherwise) -> target/urom-image.tar (docker-save
#      layout, the layers Jib made);
#   3. unpacks the layers in manifest order into a fresh rootfs, reads Entrypoint/Env from the
#      image config, and checks the launcher, urom-launch and urom-probe are mode 0755;
#   4. reads the container's settings from the DaemonSet manifest: SERVICE_ARGS (used as they are:
#      --listen tcp:0.0.0.0:7300, --auth-keys, --worker-user, --http-port) and the capabilities it
#      adds (the only ones the daemon keeps here);
#   5. makes a key with `bin/urom keygen` and lays it out as a mounted Secret does (a tmpfs of mode
#      1777 holding ..<time>/NAME mode 0400, ..data -> ..<time>, NAME -> ..data/NAME, all root's),
#      mounted read-only at the --auth-keys directory;
#   6. starts the entrypoint in new mount, pid and network namespaces (the daemon is pid 1 of its
#      namespace, as a pod's entrypoint is; ports of its own, so the manifest's address works),
#      chrooted by capsh into the rootfs, which is mounted read-only (readOnlyRootFilesystem) with a
#      tmpfs of mode 1777 at /tmp (the manifest's emptyDir of medium Memory) and a host folder at
#      /var/log/doca/urom (the hostPath) and an /etc/hosts (the kubelet's); capsh keeps only the manifest's capabilities and sets
#      no_new_privs (allowPrivilegeEscalation: false); only the image's env plus SERVICE_ARGS;
#   7. from the host, in the daemon's network namespace: without a key, and with a key the daemon
#      does not hold, `bin/urom plugins` must be refused; with the key it must list worker_graph and
#      worker_sandbox; `bin/urom loopback` through the C and the Java graph plugin and a
#      `bin/urom ping-pong` through the sandbox plugin must work (workers start inside the image);
#      /readyz must answer 200 and /metrics count the loopbacks;
#   8. checks the processes: the daemon with exactly the manifest's capabilities, no_new_privs, a
#      read-only root; every worker process seen (sampled while the hosts run) with the uid and gid
#      of --worker-user, no capability and no_new_privs; once they have ended, their directories
#      under /tmp are gone; the daemon's log and the workers' logs (written by the daemon: root's)
#      in the log folder;
#   9. stops the daemon with SIGTERM and removes the rootfs (KEEP=1 keeps it).
#
# Needs root (unshare/mount/chroot), jq, capsh (libcap), nsenter, ip, curl, Maven (which fetches
# jib-maven-plugin on the first run, then builds offline), and the distribution built first (mvn -B -q package -DskipTests at the
# repository root). Exit 0 when all checks pass.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
base="$here/target/local-base.tar"
image="$here/target/urom-image.tar"
manifest="$repo/deploy/k8s/urom-daemonset.yaml"
urom="$repo/bin/urom"
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (unshare, mount, chroot)"
[ -d "$repo/cli/target/urom/lib" ] || fail "no distribution at cli/target/urom; run mvn -B -q package -DskipTests first"
for tool in jq capsh nsenter ip curl unshare mount; do
  command -v "$tool" >/dev/null || fail "needs $tool"
done

# The container's settings, as the DaemonSet manifest gives them (deploy/src/test holds the
# manifest to the daemon's options; here they are run).
service_args="$(awk '/- name: SERVICE_ARGS$/ { getline; sub(/^[[:space:]]*value:[[:space:]]*"/, ""); sub(/"[[:space:]]*$/, ""); print; exit }' "$manifest")"
[ -n "$service_args" ] || fail "$manifest: no SERVICE_ARGS value"
kept_caps="$(awk '/^[[:space:]]*add:[[:space:]]*$/ { inside = 1; next }
  inside && /^[[:space:]]*- / { sub(/^[[:space:]]*- /, ""); printf "%scap_%s", sep, tolower($1); sep = ","; next }
  inside { exit }' "$manifest")"
[ -n "$kept_caps" ] || fail "$manifest: no capabilities.add list"
option() { awk -v name="$1" '{ for (i = 1; i < NF; i++) if ($i == name) { print $(i + 1); exit } }' <<<"$service_args"; }
keys_dir="$(option --auth-keys)"; worker_user="$(option --worker-user)"; listen="$(option --listen)"; http_port="$(option --http-port)"
[ -n "$keys_dir" ] && [ -n "$listen" ] && [ -n "$http_port" ] || fail "SERVICE_ARGS '$service_args' lacks --auth-keys, --listen or --http-port"
[[ "$worker_user" =~ ^([0-9]+):([0-9]+)$ ]] || fail "SERVICE_ARGS --worker-user '$worker_user' is not UID:GID"
worker_uid="${BASH_REMATCH[1]}"; worker_gid="${BASH_REMATCH[2]}"
service="tcp:127.0.0.1:${listen##*:}"
every_cap="$(capsh --print | sed -n 's/^Bounding set =//p')"
dropped_caps="$(tr , '\n' <<<"$every_cap" | grep -vxF -f <(tr , '\n' <<<"$kept_caps") | paste -sd, -)"

mkdir -p "$here/target"
[ -f "$base" ] || "$here/make-local-base.sh" "$base"
# Offline when the Jib plugin is already in the local Maven repository; on a fresh machine Maven
# fetches it (and only what is missing) once.
jib_build=(-B -q -f "$here/pom.xml" -Pimage package -Dimage.base="tar://$base" -Dimage.tar="$image")
if ! mvn -o "${jib_build[@]}" >"$here/target/jib-offline.log" 2>&1; then
  if grep -q "offline mode" "$here/target/jib-offline.log"; then
    echo "test-image: the Jib plugin is not in the local Maven repository yet; fetching it once"
    mvn "${jib_build[@]}"
  else
    cat "$here/target/jib-offline.log" >&2
    fail "the image build failed (log above)"
  fi
fi
[ -f "$image" ] || fail "Jib wrote no $image"

work="$(mktemp -d "${TMPDIR:-/tmp}/urom-image.XXXXXX")"
rootfs="$work/rootfs"
logs="$work/logs"
daemon_pid=""
cleanup() {
  touch "$work/watch.stop"
  # unshare --fork ignores SIGTERM itself: stop its child (the daemon, pid 1 of the namespace).
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    for child in $(pgrep -P "$daemon_pid"); do kill -TERM "$child" 2>/dev/null || true; done
    for _ in $(seq 150); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$daemon_pid" 2>/dev/null && echo "test-image: the daemon did not stop in 30 s (pid $daemon_pid)" >&2
    wait "$daemon_pid" 2>/dev/null || true
  fi
  wait 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "test-image: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

mkdir -p "$work/image" "$rootfs"
tar -C "$work/image" -xf "$image"
config="$work/image/$(jq -r '.[0].Config' "$work/image/manifest.json")"
for layer in $(jq -r '.[0].Layers[]' "$work/image/manifest.json"); do
  tar --warning=no-unknown-keyword -C "$rootfs" -xzf "$work/image/$layer"        # Jib and our base write no whiteout files
done
mapfile -t entrypoint < <(jq -r '.config.Entrypoint[]' "$config")
mapfile -t env < <(jq -r '.config.Env[]' "$config")
[ "${entrypoint[*]}" = "/opt/urom/bin/urom daemon" ] || fail "entrypoint is '${entrypoint[*]}'"
printf '%s\n' "${env[@]}" | grep -qx 'UROM_PLUGIN_PATH=/opt/urom/plugins/worker_graph;/opt/urom/plugins/worker_sandbox' \
  || fail "image env lacks UROM_PLUGIN_PATH: ${env[*]}"
for f in bin/urom lib/native/urom-probe lib/native/urom-launch lib/native/liburom_bridge.so plugins/worker_graph/worker_graph.so \
         plugins/worker_sandbox/worker_sandbox.so plugins/worker_graph/worker_graph_java.jar; do
  [ -e "$rootfs/opt/urom/$f" ] || fail "image lacks /opt/urom/$f"
done
for f in bin/urom lib/native/urom-probe lib/native/urom-launch; do
  [ "$(stat -c %a "$rootfs/opt/urom/$f")" = 755 ] || fail "/opt/urom/$f has mode $(stat -c %a "$rootfs/opt/urom/$f") in the image, not 755"
done

# The Secret's key, and the hosts' copies: one the daemon holds, one it does not.
mkdir -m 700 "$work/host-keys"
"$urom" keygen "$work/host-keys/tester" >/dev/null
"$urom" keygen "$work/host-keys/stranger" >/dev/null
key="$work/host-keys/tester"
mkdir -p "$logs" "$rootfs$keys_dir"
chmod 755 "$logs"
# The kubelet gives every container an /etc/hosts (a host-network pod: the node's names); so does this.
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t%s\n' "$(hostname)" > "$work/hosts"
[ -e "$rootfs/etc/hosts" ] || : > "$rootfs/etc/hosts"

# The container: private mounts, pids and network; the image's root read-only with its volumes
# mounted over it; chrooted and left with the manifest's capabilities by capsh (which runs on the
# host side, as do ip and mount: the image has neither). The Secret is laid out as the kubelet does.
env -i "${env[@]}" SERVICE_ARGS="$service_args" \
  unshare --mount --pid --net --fork --kill-child=SIGTERM -- /bin/sh -c '
    set -e; r="$1"; keys="$2"; key="$3"; logs="$4"; hosts="$5"; drop="$6"; shift 6
    ip link set lo up
    mount --bind "$r" "$r"
    mount --rbind /dev "$r/dev"
    mount -t proc proc "$r/proc"
    # /sys read-only, as container runtimes give it: UCX finds the network interfaces there.
    mkdir -p "$r/sys"
    mount -t sysfs -o ro,nosuid,nodev,noexec sysfs "$r/sys"
    mount --bind "$hosts" "$r/etc/hosts"
    mount -t tmpfs -o mode=1777,nosuid,nodev urom-tmp "$r/tmp"
    mount --bind "$logs" "$r/var/log/doca/urom"
    mount -t tmpfs -o mode=1777 urom-keys "$r$keys"
    version="..2026_01_01_00_00_00.000000001"
    mkdir -m 755 "$r$keys/$version"
    cp "$key" "$r$keys/$version/tester"
    chmod 400 "$r$keys/$version/tester"
    ln -s "$version" "$r$keys/..data"
    ln -s ..data/tester "$r$keys/tester"
    mount -o remount,ro "$r$keys"
    mount -o remount,bind,ro "$r"
    program="$1"; shift
    exec capsh --chroot="$r" --drop="$drop" --no-new-privs --shell="$program" -- "$@"' \
  urom-container "$rootfs" "$keys_dir" "$key" "$logs" "$work/hosts" "$dropped_caps" "${entrypoint[@]}" \
  > "$work/daemon.out" 2>&1 &
daemon_pid=$!

deadline=$((SECONDS + 60))
until grep -q "listening on" "$work/daemon.out" 2>/dev/null; do
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/daemon.out" >&2; fail "the entrypoint exited before listening"; }
  [ $SECONDS -lt $deadline ] || { cat "$work/daemon.out" >&2; fail "the daemon did not listen within 60 s"; }
  sleep 0.2
done
jvm="$(pgrep -P "$daemon_pid")"
[ "$(wc -w <<<"$jvm")" = 1 ] || fail "expected one process under unshare (the daemon), found: $jvm"
echo "test-image: daemon listening ($(grep -o 'listening on [^ ]*' "$work/daemon.out")), pid 1 of its namespaces, SERVICE_ARGS from $(basename "$manifest")"

# What the daemon runs with.
daemon_caps="$(capsh --decode="$(awk '/^CapEff:/ { print $2 }' "/proc/$jvm/status")" | sed 's/^0x[0-9a-f]*=//')"
[ "$(tr , '\n' <<<"$daemon_caps" | sort)" = "$(tr , '\n' <<<"$kept_caps" | sort)" ] \
  || fail "the daemon's capabilities are '$daemon_caps', not the manifest's '$kept_caps'"
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$jvm/status" || fail "the daemon runs without no_new_privs"
[ "$(awk '$5 == "/" { split($6, o, ","); print o[1] }' "/proc/$jvm/mountinfo")" = ro ] || fail "the daemon's root file system is not read-only"
echo "test-image: daemon: uid 0, capabilities $daemon_caps, no_new_privs, read-only root"

# Every worker process (a java child of the daemon; before its exec it is urom-launch), sampled
# while the hosts below run: pid, then its ids, capabilities and no_new_privs.
watch_workers() {
  while [ ! -e "$work/watch.stop" ]; do
    for w in $(pgrep -P "$jvm"); do
      [ "$(cat "/proc/$w/comm" 2>/dev/null)" = java ] || continue
      status="$(grep -E '^(Uid|Gid|Groups|CapPrm|CapEff|NoNewPrivs):' "/proc/$w/status" 2>/dev/null | tr -s '\t\n' '  ')" || continue
      echo "$w $status" >> "$work/workers.seen"
    done
    sleep 0.05
  done
}
watch_workers &
watch_pid=$!

in_daemon_net() { nsenter --net="/proc/$daemon_pid/ns/net" -- "$@"; }
# `urom plugins` takes its key from UROM_AUTH_KEY_FILE only; the other commands have --auth-key-file too.
if refused="$(UROM_AUTH_KEY_FILE='' in_daemon_net "$urom" plugins --service "$service" 2>&1)"; then
  fail "a host without a key was served: $refused"
fi
grep -q 'prove a key' <<<"$refused" || fail "a host without a key failed, but not for the key: $refused"
echo "test-image: no key: $refused"
if refused="$(UROM_AUTH_KEY_FILE="$work/host-keys/stranger" in_daemon_net "$urom" plugins --service "$service" 2>&1)"; then
  fail "a host with a key the daemon does not hold was served: $refused"
fi
echo "test-image: unknown key: $refused"
listing="$(UROM_AUTH_KEY_FILE="$key" in_daemon_net "$urom" plugins --service "$service" 2>&1)" || fail "bin/urom plugins with the key failed: $listing"
echo "$listing"
grep -q worker_graph <<<"$listing" || fail "the daemon did not report worker_graph"
grep -q worker_sandbox <<<"$listing" || fail "the daemon did not report worker_sandbox"
for plugin in worker_graph worker_graph_java; do
  answer="$(in_daemon_net "$urom" loopback --service "$service" --auth-key-file "$key" --value 42 --plugin "$plugin" 2>&1)" \
    || { cat "$work/daemon.out" >&2; fail "loopback through $plugin in a worker of the image failed: $answer"; }
  echo "$answer"
  grep -q "^loopback 42 -> 42 via $plugin" <<<"$answer" || fail "unexpected loopback answer: $answer"
done
answer="$(in_daemon_net "$urom" ping-pong --service "$service" --auth-key-file "$key" --message hello --rounds 50 2>&1)" \
  || { cat "$work/daemon.out" >&2; fail "ping-pong through worker_sandbox in workers of the image failed: $answer"; }
echo "$answer"
in_daemon_net curl -fsS "http://127.0.0.1:$http_port/readyz" || fail "/readyz did not answer 200"
echo
# A worker reports its final counts as it ends, just after the host's loopback returns: poll briefly.
deadline=$((SECONDS + 30))
until metrics="$(in_daemon_net curl -fsS "http://127.0.0.1:$http_port/metrics")" \
    && grep -q '^urom_commands_total{plugin="worker_graph"} [1-9]' <<<"$metrics" \
    && grep -q '^urom_commands_total{plugin="worker_graph_java"} [1-9]' <<<"$metrics"; do
  [ $SECONDS -lt $deadline ] || fail "/metrics did not count the loopbacks: $(grep '^urom_commands' <<<"$metrics")"
  sleep 0.2
done
grep -E '^urom_(commands_total|worker_starts_total|worker_exits_total)' <<<"$metrics"

# The workers: all ended, none as root, each directory removed by the daemon.
deadline=$((SECONDS + 30))
while pgrep -P "$jvm" >/dev/null; do
  [ $SECONDS -lt $deadline ] || fail "worker processes still run 30 s after the hosts ended: $(pgrep -a -P "$jvm")"
  sleep 0.2
done
touch "$work/watch.stop"
wait "$watch_pid"
[ -s "$work/workers.seen" ] || fail "no worker process was seen"
expected="Uid: $worker_uid $worker_uid $worker_uid $worker_uid Gid: $worker_gid $worker_gid $worker_gid $worker_gid Groups: $worker_gid CapPrm: 0000000000000000 CapEff: 0000000000000000 NoNewPrivs: 1"
while read -r pid status; do
  [ "${status% }" = "$expected" ] || fail "worker process $pid runs with '$status', not '$expected'"
done < "$work/workers.seen"
workers_seen="$(cut -d' ' -f1 "$work/workers.seen" | sort -u | wc -l)"
[ "$workers_seen" -ge 2 ] || fail "only $workers_seen worker process was seen (the loopbacks and ping-pong start several)"
echo "test-image: $workers_seen worker processes seen, each as uid $worker_uid gid $worker_gid, no capability, no_new_privs"
left="$(find "/proc/$jvm/root/tmp" -mindepth 2 -maxdepth 2 -path '*/urom-workers-*/worker-*' 2>/dev/null)"
[ -z "$left" ] || fail "worker directories left after their workers ended: $left"

log="$logs/urom_daemon_dev.log"
[ -s "$log" ] || fail "no daemon log at /var/log/doca/urom/urom_daemon_dev.log"
! grep -E 'cannot (delete|keep|remove)' "$log" || fail "the daemon could not clean up after its workers (above)"
worker_logs="$(find "$logs" -maxdepth 1 -name 'urom_worker_*_dev.log')"
[ -n "$worker_logs" ] || fail "no worker log in /var/log/doca/urom"
for f in $worker_logs; do
  [ "$(stat -c %u "$f")" = 0 ] || fail "$f is owned by uid $(stat -c %u "$f"): the daemon, not the worker, writes it"
done
echo "test-image: daemon log: $(wc -l < "$log") lines; worker logs (written by the daemon): $(wc -l <<<"$worker_logs")"
echo "test-image: OK"
