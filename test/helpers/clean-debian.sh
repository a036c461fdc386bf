#!/usr/bin/env bash
# A clean Debian machine as a podman image, for the README's-first-command test: debootstrap bookworm
# minbase plus only `nodejs` and `npm` from Debian (Node 18, npm 9), nothing of cairn's own. Made once
# and cached: the root file system in $CAIRN_ROOTFS_CACHE (default /var/cache/cairn-rootfs) under a
# key of this recipe, imported as the podman image printed on the last line (cairn-clean-debian:<key>).
# Delete the directory (and `podman rmi` the image) to take newer Debian updates.
#
# Usage: test/helpers/clean-debian.sh    (needs root, debootstrap and podman; CAIRN_PODMAN_ARGS and
# CONTAINERS_CONF as for scripts/lib/build-image.sh)
set -euo pipefail
suite=bookworm
packages=(nodejs npm)
recipe=1 # raise when the steps below change
mirror="${CAIRN_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${CAIRN_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
cache_root="${CAIRN_ROOTFS_CACHE:-/var/cache/cairn-rootfs}"
key="$(printf '%s\n' clean "$recipe" "$suite" "$(uname -m)" "${packages[@]}" | sha256sum | cut -c1-16)"
cache="$cache_root/clean-$suite-$key"
image="cairn-clean-debian:$key"
read -r -a podman_args <<<"${CAIRN_PODMAN_ARGS:-}"

make_rootfs() {
  local work="$cache.partial" fs="$cache.partial/rootfs"
  rm -rf "$work"
  mkdir -p "$work"
  echo "[clean-debian] debootstrap $suite minbase + ${packages[*]} (a few minutes, once): $cache" >&2
  debootstrap --variant=minbase "$suite" "$fs" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; return 1; }
  printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' "$mirror" "$suite" "$mirror" "$suite" "$security" "$suite" >"$fs/etc/apt/sources.list"
  printf '#!/bin/sh\nexit 101\n' >"$fs/usr/sbin/policy-rc.d"
  chmod 0755 "$fs/usr/sbin/policy-rc.d"
  cp /etc/resolv.conf "$fs/etc/resolv.conf"
  chroot "$fs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
    sh -c "apt-get update -qq && apt-get install -y -qq ${packages[*]} && apt-get clean" \
    >>"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; return 1; }
  rm -f "$fs/usr/sbin/policy-rc.d"
  : >"$fs/etc/resolv.conf"
  find "$fs/dev" -mindepth 1 -delete
  rm -rf "$cache"
  mv "$work" "$cache"
  touch "$cache/.complete"
}

mkdir -p "$cache_root"
exec 8>"$cache_root/.clean-lock"
flock 8
if [ ! -f "$cache/.complete" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "[clean-debian] making the root file system needs root (debootstrap, chroot)" >&2; exit 1; }
  command -v debootstrap >/dev/null || { echo "[clean-debian] debootstrap is missing: apt-get install -y debootstrap" >&2; exit 1; }
  make_rootfs
fi
if ! podman "${podman_args[@]}" image exists "$image"; then
  echo "[clean-debian] importing $cache/rootfs as $image" >&2
  tar -C "$cache/rootfs" -c . | podman "${podman_args[@]}" import --quiet - "$image" >/dev/null
fi
echo "$image"
