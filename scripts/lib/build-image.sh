#!/usr/bin/env bash
# The container image from dist/ (scripts/build --image calls this after compiling):
#   1. a Debian root file system (debootstrap minbase + caddy, redis-server, bubblewrap, curl, CA certificates),
#      made once and cached in $CAIRN_ROOTFS_CACHE (default /var/cache/cairn-rootfs) under a key of
#      the suite, architecture and package list; delete the directory to take newer Debian updates;
#   2. a staged build context: app/bin/<every dist executable of bins/*/main.ts>, app/proxy, app/web;
#   3. podman build --format docker (HEALTHCHECK needs it) FROM scratch (Containerfile).
#
# Usage: scripts/lib/build-image.sh [--tag NAME]        (default cairn:dev)
# Environment: APP_VERSION (default dev), CAIRN_REVISION (default git HEAD), CAIRN_SOURCE (default the
# git remote), CAIRN_PODMAN_ARGS (global podman options, e.g. "--storage-driver vfs --runtime runc"),
# CAIRN_DEBIAN_MIRROR, CAIRN_DEBIAN_SECURITY_MIRROR. Making the root file system needs root.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

tag=cairn:dev
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="$2"; shift 2 ;;
    *) echo "[image] unknown argument $1" >&2; exit 2 ;;
  esac
done

suite=bookworm
packages=(ca-certificates curl redis-server caddy libstdc++6 bubblewrap)
recipe=3 # raise when the steps below change
mirror="${CAIRN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${CAIRN_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
cache_root="${CAIRN_ROOTFS_CACHE:-/var/cache/cairn-rootfs}"
key="$(printf '%s\n' "$recipe" "$suite" "$(uname -m)" "${packages[@]}" | sha256sum | cut -c1-16)"
cache="$cache_root/$suite-$key"
read -r -a podman_args <<<"${CAIRN_PODMAN_ARGS:-}"
now_ms() { date +%s%3N; }

make_rootfs() {
  local work="$cache.partial" fs="$cache.partial/rootfs"
  rm -rf "$work"
  mkdir -p "$work"
  echo "[image] making the root file system (debootstrap $suite minbase; 1-2 minutes, once per package list): $cache"
  if ! debootstrap --variant=minbase "$suite" "$fs" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -20 "$work/debootstrap.log" >&2
    return 1
  fi
  cat >"$fs/etc/apt/sources.list" <<EOF
deb $mirror $suite main
deb $mirror $suite-updates main
deb $security $suite-security main
EOF
  printf '#!/bin/sh\nexit 101\n' >"$fs/usr/sbin/policy-rc.d" # no service starts in the chroot
  chmod 0755 "$fs/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$fs/etc/resolv.conf"
  chroot "$fs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c "apt-get update -qq && apt-get upgrade -y -qq && apt-get install -y -qq --no-install-recommends ${packages[*]} && apt-get clean" \
    >>"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; return 1; }
  # Slim: no package lists, caches, logs, manuals or translations; copyright files stay.
  rm -rf "$fs"/var/lib/apt/lists/* "$fs"/var/cache/apt/* "$fs"/var/cache/debconf/*-old "$fs"/var/log/* \
    "$fs"/usr/share/man/* "$fs"/usr/share/info/* "$fs"/usr/share/locale/* "$fs/usr/sbin/policy-rc.d"
  find "$fs/usr/share/doc" -type f ! -name copyright -delete
  # Mount points the runtime binds over: present, so a container's layer stays unchanged.
  : >"$fs/etc/resolv.conf"
  : >"$fs/etc/hostname"
  printf '127.0.0.1 localhost\n::1 localhost\n' >"$fs/etc/hosts"
  chmod 0644 "$fs/etc/resolv.conf" "$fs/etc/hostname" "$fs/etc/hosts"
  ln -sfn /proc/mounts "$fs/etc/mtab"
  # The runtime provides /dev, /proc, /sys; device nodes do not belong in an image layer.
  find "$fs/dev" -mindepth 1 -delete
  # The default user (any other uid works too), /data writable by any user, execute-only programs.
  echo 'cairn:x:10001:10001:cairn:/data:/usr/sbin/nologin' >>"$fs/etc/passwd"
  echo 'cairn:x:10001:' >>"$fs/etc/group"
  install -d -m 1777 "$fs/data"
  chmod 0711 "$fs/usr/bin/caddy" "$(readlink -f "$fs/usr/bin/redis-server")"
  rm -rf "$cache"
  mv "$work" "$cache"
  touch "$cache/.complete"
}

ensure_rootfs() {
  [ -f "$cache/.complete" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then echo "[image] making the root file system needs root (debootstrap, chroot)" >&2; return 1; fi
  command -v debootstrap >/dev/null || { echo "[image] debootstrap is missing: apt-get install -y debootstrap" >&2; return 1; }
  mkdir -p "$cache_root"
  exec 8>"$cache_root/.lock"
  flock 8
  [ -f "$cache/.complete" ] || make_rootfs
  exec 8>&-
}

started="$(now_ms)"
ensure_rootfs
echo "[image] root file system: $cache/rootfs ($(du -sh "$cache/rootfs" | cut -f1))"

stage="$(mktemp -d "${TMPDIR:-/tmp}/cairn-image-context.XXXXXX")"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/app/bin" "$stage/app/proxy"
for main in bins/*/main.ts; do
  name="$(basename "$(dirname "$main")")"
  [ -x "dist/$name" ] || { echo "[image] dist/$name is missing: run scripts/build" >&2; exit 1; }
  ln "dist/$name" "$stage/app/bin/$name" 2>/dev/null || cp -p "dist/$name" "$stage/app/bin/$name"
done
cp proxy/Caddyfile "$stage/app/proxy/"
"$root/scripts/build-web" --if-stale >&2
cp -R dist/web "$stage/app/web"

revision="${CAIRN_REVISION:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
source_url="${CAIRN_SOURCE:-$(git remote get-url origin 2>/dev/null || echo unknown)}"
source_url="$(printf '%s' "$source_url" | sed -E 's#://[^/@]*@#://#')" # never a credential in a label
# Inputs of the image (executables by path, time and size; everything else by content): an image of
# this tag built from the same inputs is kept, so repeated test runs do not rebuild it.
inputs="$( { echo "$key ${APP_VERSION:-dev} $revision $source_url"; (cd "$stage" && find app/bin -type f -exec stat -c '%n %Y %s' {} + | sort
  find app/proxy app/web -type f -exec sha256sum {} + | sort)
  cat "$root/Containerfile" "$0"; } | sha256sum | cut -c1-32)"
previous="$(podman "${podman_args[@]}" image inspect --format '{{.Id}} {{index .Labels "io.cairn.build-inputs"}}' "$tag" 2>/dev/null || true)"
if [ "${previous#* }" = "$inputs" ]; then
  echo "[image] $tag is up to date (same executables, Containerfile, proxy and web files)"
  exit 0
fi
previous="${previous%% *}"
t0="$(now_ms)"
podman "${podman_args[@]}" build --quiet --format docker --layers=false \
  --build-context "rootfs=$cache/rootfs" \
  --build-arg "APP_VERSION=${APP_VERSION:-dev}" --build-arg "REVISION=$revision" --build-arg "SOURCE=$source_url" \
  --label "io.cairn.build-inputs=$inputs" --tag "$tag" --file "$root/Containerfile" "$stage" >/dev/null
# The image this tag named before is removed (unless a container still uses it): no dangling copies.
current="$(podman "${podman_args[@]}" image inspect --format '{{.Id}}' "$tag")"
if [ -n "$previous" ] && [ "$previous" != "$current" ]; then podman "${podman_args[@]}" rmi "$previous" >/dev/null 2>&1 || true; fi
size="$(podman "${podman_args[@]}" image inspect --format '{{.Size}}' "$tag")"
echo "[image] $tag: $(awk -v b="$size" 'BEGIN { printf "%.1f MB", b / 1000000 }') (podman build $(( $(now_ms) - t0 )) ms; total $(( $(now_ms) - started )) ms)"
