#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make-local-base.sh OUT.tar [JAVA_HOME]
# Makes a minimal base image from this machine, for building and testing the image where no
# container registry is reachable: this machine's Java 17 runtime (bin, conf, lib; no jmods,
# headers or sources), /bin/sh, and the shared libraries that those and the distribution's native
# files need (their ldd closure). Writes it in the `docker save` layout (manifest.json, config,
# one layer.tar) that Jib reads as a base with  -Dimage.base=tar://OUT.tar  (absolute path).
# Needs: bash, coreutils, tar, ldd. Not a production base: for tests on this machine only.
set -euo pipefail
mkdir -p "$(dirname "$1")"
out="$(readlink -f "$1")"
jdk="$(readlink -f "${2:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dist="${UROM_DIST:-$here/../cli/target/urom}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"/{usr/bin,usr/lib,etc,tmp,var/log,run,proc,dev,sys,opt}
# Debian (usrmerge) has /bin, /sbin, /lib, /lib64 as links into /usr; ldd names libraries by /lib.
for l in /bin /sbin /lib /lib64; do
  if [ -L "$l" ]; then ln -s "$(readlink "$l")" "$root$l"; mkdir -p "$root/$(readlink -f "$l")"; else mkdir -p "$root$l"; fi
done
chmod 1777 "$root/tmp"
mkdir -m 700 "$root/root"   # root's home, as in real bases (the JVM uses user.home)

# The Java runtime, at the same path, and its configuration (Debian links conf/ into /etc).
mkdir -p "$root$jdk"
for part in bin conf lib release; do
  [ -e "$jdk/$part" ] && cp -a "$jdk/$part" "$root$jdk/"
done
rm -f "$root$jdk/lib/src.zip"
for link in $(find "$root$jdk" -type l); do
  target="$(readlink -f "${link#"$root"}" || true)"
  if [ -n "$target" ] && [ -e "$target" ] && [ ! -e "$root$target" ]; then
    mkdir -p "$root$(dirname "$target")"; cp -a "$target" "$root$target"
  fi
done
ln -s "$jdk/bin/java" "$root/usr/bin/java"

# A shell for the launcher.
cp -L "$(readlink -f /bin/sh)" "$root/bin/sh"

# Shared libraries: the ldd closure of every ELF file copied, plus the distribution's.
elves() { find "$@" -type f \( -name '*.so*' -o -perm -u+x \) 2>/dev/null; }
{ elves "$root$jdk" "$root/bin"; elves "$dist/lib/native" "$dist/plugins"; } \
  | xargs -r ldd 2>/dev/null | grep -o '/[^ ]*' | sort -u | while read -r lib; do
      [ -e "$lib" ] || continue
      for p in "$lib" "$(readlink -f "$lib")"; do
        mkdir -p "$root$(dirname "$p")"; cp -a "$p" "$root$p" 2>/dev/null || true
      done
    done
# Accounts as in the public base: root and nobody, no urom. The manifests give the workers a
# UID:GID that needs no account, and test-image.sh runs them so, as on the public base.
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"

# docker-save layout: one uncompressed layer, its diff id in the config.
mkdir -p "$work/image/layer"
tar --numeric-owner -C "$root" -cf "$work/image/layer/layer.tar" .
diff_id="$(sha256sum "$work/image/layer/layer.tar" | cut -d' ' -f1)"
cat > "$work/config.json" <<JSON
{"architecture":"amd64","os":"linux",
 "config":{"Env":["PATH=$jdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=$jdk"]},
 "rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},
 "history":[{"created_by":"image/make-local-base.sh"}]}
JSON
config_id="$(sha256sum "$work/config.json" | cut -d' ' -f1)"
mv "$work/config.json" "$work/image/$config_id.json"
printf '[{"Config":"%s.json","RepoTags":["urom-local-base:latest"],"Layers":["layer/layer.tar"]}]\n' \
  "$config_id" > "$work/image/manifest.json"
mkdir -p "$(dirname "$out")"
tar -C "$work/image" -cf "$out" manifest.json "$config_id.json" layer
echo "local base: $out ($(du -h "$out" | cut -f1), Java $jdk)"
