#!/usr/bin/env bash
# test-image.sh: builds the service's image with Jib on a locally made base and runs its entrypoint
# without a container engine, then checks from the host that the daemon answers.
#
#   1. make-local-base.sh: a base image tar (this machine's Java 17 + /bin/sh + their libraries),
#      unless target/local-base.tar exists (delete it to remake it);
#   2. mvn -o -f image/pom.xml -Pimage package -Dimage.base=tar://.../local-base.tar
#      -> target/urom-image.tar (docker-save layout, the layers Jib made);
#   3. unpacks the layers in manifest order into a fresh rootfs and reads Entrypoint/Env from
#      the image config;
#   4. starts the entrypoint (`/opt/urom/bin/urom daemon`) in new mount and pid namespaces, chrooted
#      into the rootfs (with /dev bound and /proc mounted), with only the image's env plus
#      SERVICE_ARGS="--listen tcp:127.0.0.1:PORT -l 60 --http-port HTTP" (PORT: UROM_TEST_PORT,
#      default 7399; HTTP: UROM_TEST_HTTP_PORT, default 7398); the daemon is pid 1 of its namespace,
#      as the entrypoint of a pod is;
#   5. from the host: bin/urom plugins --service tcp:127.0.0.1:PORT must list worker_graph and
#      worker_sandbox (from the image's UROM_PLUGIN_PATH); bin/urom loopback through the C and the
#      Java graph plugin must come back, so worker processes start inside the image; /readyz must
#      answer 200 and /metrics must count the commands of both plugins; the daemon's log and the
#      workers' logs must be in ROOTFS/var/log/doca/urom/;
#   6. stops the daemon with SIGTERM and removes the rootfs (KEEP=1 keeps it).
#
# Needs root (unshare/mount/chroot), jq, Maven with jib-maven-plugin in ~/.m2, and the distribution
# built first (mvn -B -q package -DskipTests at the repository root). Exit 0 when all checks pass.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
base="$here/target/local-base.tar"
image="$here/target/urom-image.tar"
fail() { echo "test-image: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (unshare --mount, chroot)"
[ -d "$repo/cli/target/urom/lib" ] || fail "no distribution at cli/target/urom; run mvn -B -q package -DskipTests first"

[ -f "$base" ] || "$here/make-local-base.sh" "$base"
mvn -B -q -o -f "$here/pom.xml" -Pimage package -Dimage.base="tar://$base" -Dimage.tar="$image"
[ -f "$image" ] || fail "Jib wrote no $image"

work="$(mktemp -d "${TMPDIR:-/tmp}/urom-image.XXXXXX")"
rootfs="$work/rootfs"
daemon_pid=""
cleanup() {
  # unshare --fork ignores SIGTERM itself: stop its child (the daemon, pid 1 of the namespace).
  if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
    for child in $(pgrep -P "$daemon_pid"); do kill -TERM "$child" 2>/dev/null || true; done
    for _ in $(seq 150); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$daemon_pid" 2>/dev/null && echo "test-image: the daemon did not stop in 30 s (pid $daemon_pid)" >&2
    wait "$daemon_pid" 2>/dev/null || true
  fi
  umount -R "$rootfs/dev" "$rootfs/proc" 2>/dev/null || true   # private to the namespace; a no-op
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
for f in bin/urom lib/native/urom-probe lib/native/liburom_bridge.so plugins/worker_graph/worker_graph.so \
         plugins/worker_sandbox/worker_sandbox.so plugins/worker_graph/worker_graph_java.jar; do
  [ -e "$rootfs/opt/urom/$f" ] || fail "image lacks /opt/urom/$f"
done
[ -x "$rootfs/opt/urom/bin/urom" ] && [ -x "$rootfs/opt/urom/lib/native/urom-probe" ] || fail "launcher or probe not executable"

port="${UROM_TEST_PORT:-7399}"
http_port="${UROM_TEST_HTTP_PORT:-7398}"
service="tcp:127.0.0.1:$port"
mkdir -p "$rootfs/dev" "$rootfs/proc" "$rootfs/run/urom" "$rootfs/var/log/doca/urom"
# The container's view: private mounts, own pids, root = the unpacked layers, the image's env only;
# the network is the host's (as with hostNetwork in deploy/k8s), so hosts reach it over TCP, and
# reach its workers the same way (a worker of a TCP daemon listens on TCP too).
# (env -i runs on the host side: the image has no env binary; the image's PATH finds mount/chroot.)
env -i "${env[@]}" SERVICE_ARGS="--listen $service -l 60 --http-port $http_port" \
  unshare --mount --pid --fork --kill-child=SIGTERM -- /bin/sh -c '
    set -e; r="$1"; shift
    mount --rbind /dev "$r/dev"; mount -t proc proc "$r/proc"
    exec chroot "$r" "$@"' urom-container "$rootfs" "${entrypoint[@]}" \
  > "$work/daemon.out" 2>&1 &
daemon_pid=$!

deadline=$((SECONDS + 60))
until grep -q "listening on" "$work/daemon.out" 2>/dev/null; do
  kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/daemon.out" >&2; fail "the entrypoint exited before listening"; }
  [ $SECONDS -lt $deadline ] || { cat "$work/daemon.out" >&2; fail "the daemon did not listen on $service within 60 s"; }
  sleep 0.2
done
echo "test-image: daemon listening on $service (its pid 1 is the entrypoint, as in a pod)"

listing="$("$repo/bin/urom" plugins --service "$service")" || fail "bin/urom plugins --service failed: $listing"
echo "$listing"
grep -q worker_graph <<<"$listing" || fail "the daemon did not report worker_graph"
grep -q worker_sandbox <<<"$listing" || fail "the daemon did not report worker_sandbox"
for plugin in worker_graph worker_graph_java; do
  answer="$("$repo/bin/urom" loopback --service "$service" --value 42 --plugin "$plugin" 2>&1)" \
    || { cat "$work/daemon.out" >&2; fail "loopback through $plugin in a worker of the image failed: $answer"; }
  echo "$answer"
  grep -q "^loopback 42 -> 42 via $plugin" <<<"$answer" || fail "unexpected loopback answer: $answer"
done
curl -fsS "http://127.0.0.1:$http_port/readyz" || fail "/readyz did not answer 200"
# A worker reports its final counts as it ends, just after the host's loopback returns: poll briefly.
deadline=$((SECONDS + 30))
until metrics="$(curl -fsS "http://127.0.0.1:$http_port/metrics")" \
    && grep -q '^urom_commands_total{plugin="worker_graph"} [1-9]' <<<"$metrics" \
    && grep -q '^urom_commands_total{plugin="worker_graph_java"} [1-9]' <<<"$metrics"; do
  [ $SECONDS -lt $deadline ] || fail "/metrics did not count the loopbacks: $(grep '^urom_commands' <<<"$metrics")"
  sleep 0.2
done
grep -E '^urom_(commands_total|worker_starts_total|worker_exits_total)' <<<"$metrics"
log="$rootfs/var/log/doca/urom/urom_daemon_dev.log"
[ -s "$log" ] || fail "no daemon log at /var/log/doca/urom/urom_daemon_dev.log in the rootfs"
ls "$rootfs/var/log/doca/urom/" | grep -q '^urom_worker_[0-9]*_dev.log$' || fail "no worker log in /var/log/doca/urom in the rootfs"
echo "test-image: daemon log: $(wc -l < "$log") lines; worker logs: $(ls "$rootfs/var/log/doca/urom/" | grep -c '^urom_worker_')"
echo "test-image: OK"
