# Shared set-up of scripts/start and scripts/test: Debian packages and npm dependencies.
# Installs what is missing when it can (root), else prints the exact command and fails.

cairn_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

ensure_debian_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    case "$pkg" in
      redis-server) command -v redis-server >/dev/null 2>&1 || missing+=(redis-server) ;;
      caddy) command -v caddy >/dev/null 2>&1 || missing+=(caddy) ;;
      *) dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg") ;;
    esac
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[setup] installing Debian packages: ${missing[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "[setup] missing Debian packages: ${missing[*]}. Run: sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
}

ensure_npm_dependencies() {
  cd "$cairn_root" || return 1
  local stamp="node_modules/.cairn-install-stamp"
  if [ -x node_modules/.bin/bun ] && [ -x node_modules/.bin/node ] && [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && [ "$stamp" -nt package.json ]; then
    return 0
  fi
  echo "[setup] installing npm dependencies (npm install with the committed lockfile)"
  local installer_node
  installer_node="$(command -v node)"
  npm install --no-audit --no-fund --loglevel=error || return 1
  # npm skips an optional package whose engines the running Node does not meet (Vite's native rolldown
  # binding wants Node ^20.19 or >= 22.12; Debian 12 ships 18). The first install brought Node 24 into
  # node_modules/.bin, first on PATH (below), so a second install under it adds what was skipped.
  hash -r
  if [ "$installer_node" != "$cairn_root/node_modules/.bin/node" ] && [ "$(command -v node)" = "$cairn_root/node_modules/.bin/node" ]; then
    echo "[setup] installing again under $(node --version) for the optional packages $("$installer_node" --version) could not take"
    npm install --no-audit --no-fund --loglevel=error || return 1
  fi
  touch "$stamp"
}

export PATH="$cairn_root/node_modules/.bin:$PATH"
