#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# test-image.sh: builds the service's image with Jib on a locally made base and runs its entrypoint
# without a container engine, the way deploy/k8s/urom-daemonset.yaml runs it, then checks from
# outside that the daemon answers hosts that prove a key, and only those, and that each key's
# workers run as a uid of their own, not root, and undumpable.
#
#   1. make-local-base.sh: a base image tar (this machine's Java 17 + /bin/sh + their libraries),
#      unless target/local-base.tar exists (delete it to remake it);
#   2. mvn -f image/pom.xml -Pimage package -Dimage.base=tar://.../local-base.tar (offline when
#      the Jib plugin is cached, online once otherwise) -> target/urom-image.tar (docker-save
#      layout, the layers Jib made);
#   3. unpacks the layers in manifest order into a fresh rootfs, reads Entrypoint/Env from the
#      image config, and checks the launcher, urom-launch and urom-probe are mode 0755;
#   4. reads the container's settings from the DaemonSet manifest (MANIFEST=FILE: another one, to
#      try a variant): SERVICE_ARGS (used as they are: --listen tcp:0.0.0.0:7300, --auth-keys,
#      --worker-uid-range or the daemon's default range, --http-port; --worker-user is refused) and
#      the capabilities it adds (the only ones the daemon keeps here);
#   5. makes two keys with `bin/urom keygen` and lays them out as a mounted Secret does (a tmpfs of
#      mode 1777 holding ..<time>/NAME mode 0400, ..data -> ..<time>, NAME -> ..data/NAME, all
#      root's), mounted read-only at the --auth-keys directory;
#   6. starts the entrypoint in new mount, pid and network namespaces (the daemon is pid 1 of its
#      namespace, as a pod's entrypoint is; ports of its own, so the manifest's address works),
#      chrooted by capsh into the rootfs, which is mounted read-only (readOnlyRootFilesystem) with a
#      tmpfs of mode 1777 at /tmp (the manifest's emptyDir of medium Memory) and a host folder at
#      /var/log/doca/urom (the hostPath) and an /etc/hosts (the kubelet's); capsh keeps only the manifest's capabilities and sets
#      no_new_privs (allowPrivilegeEscalation: false); only the image's env plus SERVICE_ARGS;
#   7. from the host, in the daemon's network namespace: without a key, and with a key the daemon
#      does not hold, `bin/urom plugins` must be refused; with the key it must list worker_graph and
#      worker_sandbox; `bin/urom loopback` through the C and the Java graph plugin and a
#      `bin/urom ping-pong` through the sandbox plugin must work (workers start inside the image),
#      then a loopback and a ping-pong with the second key; /readyz must answer 200 and /metrics
#      count the loopbacks;
#   8. checks the processes: the daemon with exactly the manifest's capabilities, no_new_privs, a
#      read-only root; every worker process seen (sampled while the hosts run) with a uid of the
#      range in all four uid fields, the gid of the same number, no other group, no capability
#      and no_new_privs; the two keys' workers with two different uids; every worker undumpable: a
#      process of its uid (setpriv on the host) is denied its /proc/PID/environ, which the same
#      command reads of a process of that uid it may trace (checked first); once the workers have
#      ended, their directories under /tmp are gone; the daemon's log and the workers' logs
#      (written by the daemon: root's) in the log folder;
#   9. stops the daemon with SIGTERM and removes the rootfs (KEEP=1 keeps it).
#
# Needs root (unshare/mount/chroot), jq, capsh (libcap), nsenter, ip, curl, setpriv, Maven (which fetches
# jib-maven-plugin on the first run, then builds offline), and the distribution built first (mvn -B -q package -DskipTests at the
# repository root). Exit 0 when all checks pass.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
base="$here/target/local-base.tar"
image="$here/target/urom-image.tar"
manifest="${MANIFEST:-$repo/deploy/k8s/urom-daemonset.yaml}"
urom="$repo/bin/urom"
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (unshare, mount, chroot)"
[ -d "$repo/cli/target/urom/lib" ] || fail "no distribution at cli/target/urom; run mvn -B -q package -DskipTests first"
for tool in jq capsh nsenter ip curl unshare mount setpriv; do
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
keys_dir="$(option --auth-keys)"; listen="$(option --listen)"; http_port="$(option --http-port)"
[ -n "$keys_dir" ] && [ -n "$listen" ] && [ -n "$http_port" ] || fail "SERVICE_ARGS '$service_args' lacks --auth-keys, --listen or --http-port"
[ -z "$(option --worker-user)" ] || fail "SERVICE_ARGS gives --worker-user $(option --worker-user): all principals would share a uid"
# The daemon's default range (UidRange.DEFAULT) unless SERVICE_ARGS names one.
worker_uids="$(option --worker-uid-range)"; worker_uids="${worker_uids:-1879048192-1879113727}"
[[ "$worker_uids" =~ ^([0-9]+)-([0-9]+)$ ]] || fail "SERVICE_ARGS --worker-uid-range '$worker_uids' is not FIRST-LAST"
first_uid="${BASH_REMATCH[1]}"; last_uid="${BASH_REMATCH[2]}"
[ "$first_uid" -ge 1 ] && [ "$first_uid" -le "$last_uid" ] || fail "--worker-uid-range $worker_uids is not a range without root"
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
printf '%s\n' "${env[@]}" | grep -qx 'UROM_PLUGIN_PATH=/opt/urom/plugins/worker_graph;/opt/urom/plugins/worker_sandbox;/opt/urom/plugins/worker_coll' \
  || fail "image env lacks UROM_PLUGIN_PATH: ${env[*]}"
for f in bin/urom lib/native/urom-probe lib/native/urom-launch lib/native/liburom_bridge.so plugins/worker_graph/worker_graph.so \
         plugins/worker_sandbox/worker_sandbox.so plugins/worker_graph/worker_graph_java.jar plugins/worker_coll/worker_coll.so \
         plugins/worker_coll/worker_coll_java.jar; do
  [ -e "$rootfs/opt/urom/$f" ] || fail "image lacks /opt/urom/$f"
done
for f in bin/urom lib/native/urom-probe lib/native/urom-launch; do
  [ "$(stat -c %a "$rootfs/opt/urom/$f")" = 755 ] || fail "/opt/urom/$f has mode $(stat -c %a "$rootfs/opt/urom/$f") in the image, not 755"
done

# The Secret's keys, and the hosts' copies: two the daemon holds (two principals), one it does not.
mkdir -m 700 "$work/host-keys"
for name in tester second stranger; do "$urom" keygen "$work/host-keys/$name" >/dev/null; done
key="$work/host-keys/tester"
second_key="$work/host-keys/second"
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
    set -e; r="$1"; keys="$2"; host_keys="$3"; logs="$4"; hosts="$5"; drop="$6"; shift 6
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
    ln -s "$version" "$r$keys/..data"
    for name in tester second; do
      cp "$host_keys/$name" "$r$keys/$version/$name"
      chmod 400 "$r$keys/$version/$name"
      ln -s "..data/$name" "$r$keys/$name"
    done
    mount -o remount,ro "$r$keys"
    mount -o remount,bind,ro "$r"
    program="$1"; shift
    exec capsh --chroot="$r" --drop="$drop" --no-new-privs --shell="$program" -- "$@"' \
  urom-container "$rootfs" "$keys_dir" "$work/host-keys" "$logs" "$work/hosts" "$dropped_caps" "${entrypoint[@]}" \
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

# What a process of uid $1 (gid $1, no other group, no capability) gets when it reads the file $2:
# "read", "denied", or "other: " and the error (the process ended, ...).
read_as() {
  local error
  if error="$(setpriv --reuid "$1" --regid "$1" --clear-groups --inh-caps=-all --bounding-set=-all cat "$2" 2>&1 >/dev/null)"; then
    echo read
  elif grep -q 'Permission denied' <<<"$error"; then
    echo denied
  else
    echo "other: $(tr '\n' ' ' <<<"$error")"
  fi
}

# Every worker process (a java child of the daemon; before its exec it is urom-launch), sampled
# while the hosts below run: pid, then its ids, capabilities and no_new_privs (workers.seen). The
# first time a worker is seen, a process of its uid tries to read its environ (workers.environ:
# pid, uid, what read_as says).
watch_workers() {
  local -A tried=()
  local w status uid
  while [ ! -e "$work/watch.stop" ]; do
    for w in $(pgrep -P "$jvm"); do
      [ "$(cat "/proc/$w/comm" 2>/dev/null)" = java ] || continue
      status="$(grep -E '^(Uid|Gid|Groups|CapPrm|CapEff|NoNewPrivs):' "/proc/$w/status" 2>/dev/null | tr -s '\t\n' '  ')" || continue
      echo "$w $status" >> "$work/workers.seen"
      if [ -z "${tried[$w]:-}" ]; then
        tried[$w]=1
        uid="$(awk '{ print $2 }' <<<"$status")"
        [ "$uid" = 0 ] || echo "$w $uid $(read_as "$uid" "/proc/$w/environ")" >> "$work/workers.environ"
      fi
    done
    sleep 0.05
  done
}

# The control for the environ check: a process of the range's first uid that it may trace (sleep,
# which any uid may read, so the kernel leaves it dumpable) has its environ read by read_as.
setpriv --reuid "$first_uid" --regid "$first_uid" --clear-groups --inh-caps=-all --bounding-set=-all sleep 60 &
control_pid=$!
sleep 0.2
control="$(read_as "$first_uid" "/proc/$control_pid/environ")"
kill "$control_pid"; wait "$control_pid" 2>/dev/null || true
[ "$control" = read ] || fail "a process of uid $first_uid could not read the environ of another of its uid that it may trace: $control"
echo "test-image: control: uid $first_uid reads /proc/PID/environ of a dumpable process of its own uid"
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
# The second principal, once the first one's workers have ended: its workers run as another uid.
workers_ended() {
  local deadline=$((SECONDS + 30))
  while pgrep -P "$jvm" >/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "worker processes still run 30 s after the hosts ended: $(pgrep -a -P "$jvm")"
    sleep 0.2
  done
}
seen_uids() { awk -v from="$1" 'NR >= from { print $3 }' "$work/workers.seen" 2>/dev/null | sort -u | paste -sd' ' -; }
workers_ended
sleep 0.2
tester_lines="$(wc -l < "$work/workers.seen")"
tester_uids="$(seen_uids 1)"
answer="$(in_daemon_net "$urom" loopback --service "$service" --auth-key-file "$second_key" --value 43 --plugin worker_graph 2>&1)" \
  || { cat "$work/daemon.out" >&2; fail "loopback with the second key failed: $answer"; }
echo "$answer"
answer="$(in_daemon_net "$urom" ping-pong --service "$service" --auth-key-file "$second_key" --message hello --rounds 50 2>&1)" \
  || { cat "$work/daemon.out" >&2; fail "ping-pong with the second key failed: $answer"; }
echo "$answer"
workers_ended
sleep 0.2
second_uids="$(seen_uids $((tester_lines + 1)))"
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

# The workers: all ended, each as a uid of the range (one per principal, never root), undumpable,
# each directory removed by the daemon.
workers_ended
touch "$work/watch.stop"
wait "$watch_pid"
[ -s "$work/workers.seen" ] || fail "no worker process was seen"
while read -r pid status; do
  uid="$(awk '{ print $2 }' <<<"$status")"
  [[ "$uid" =~ ^[0-9]+$ ]] && [ "$uid" -ge "$first_uid" ] && [ "$uid" -le "$last_uid" ] \
    || fail "worker process $pid runs as uid $uid, outside --worker-uid-range $worker_uids: '$status'"
  expected="Uid: $uid $uid $uid $uid Gid: $uid $uid $uid $uid Groups: $uid CapPrm: 0000000000000000 CapEff: 0000000000000000 NoNewPrivs: 1"
  [ "${status% }" = "$expected" ] || fail "worker process $pid runs with '$status', not '$expected'"
done < "$work/workers.seen"
workers_seen="$(cut -d' ' -f1 "$work/workers.seen" | sort -u | wc -l)"
[ "$workers_seen" -ge 4 ] || fail "only $workers_seen worker processes were seen (the loopbacks and ping-pongs start several)"
[ "$(wc -w <<<"$tester_uids")" = 1 ] || fail "the first key's workers ran as uids '$tester_uids', not one"
[ "$(wc -w <<<"$second_uids")" = 1 ] || fail "the second key's workers ran as uids '$second_uids', not one"
[ "$tester_uids" != "$second_uids" ] || fail "the two keys' workers share uid $tester_uids"
echo "test-image: $workers_seen worker processes seen, the first key's as uid $tester_uids, the second's as uid $second_uids" \
  "(gid the same number, no other group), no capability, no_new_privs"
[ -s "$work/workers.environ" ] || fail "no worker was seen in time to try its environ"
! grep ' read$' "$work/workers.environ" || fail "a process of a worker's uid read the worker's environ (above)"
! grep -v -e ' denied$' -e 'No such' "$work/workers.environ" || fail "trying a worker's environ failed otherwise (above)"
for uid in $tester_uids $second_uids; do
  grep -q "^[0-9]* $uid denied\$" "$work/workers.environ" || fail "no worker of uid $uid was tried while it ran: $(cat "$work/workers.environ")"
done
echo "test-image: undumpable: a process of the worker's uid is denied /proc/PID/environ" \
  "($(grep -c ' denied$' "$work/workers.environ") of $(wc -l < "$work/workers.environ") workers tried; the others had ended)"
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
