#!/usr/bin/env bash
# Install the system packages Lyra needs besides Python ones: Debian's Chromium, which Playwright
# drives for browser search and page fetching (Playwright's own browser download needs a network
# that CI does not have), and Debian's redis-server, the broker the cluster profile's tests start.
# Safe to re-run: does nothing when both are already there; quiet unless something fails.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

packages=()
[ -x "$CHROMIUM" ] || packages+=(chromium)
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || packages+=(redis-server)
if [ ${#packages[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: no apt-get here; install ${packages[*]} with your package manager" \
       "(or run '.venv/bin/playwright install chromium' for Lyra's browser stages); the cluster" \
       "profile's tests skip without redis-server" >&2
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    echo "install-system-deps: ${packages[*]} missing and installing needs root (apt-get install ${packages[*]})" >&2
    exit 1
  fi
fi

log=$(mktemp -t lyra-apt.XXXXXX)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq "${packages[@]}"; } >"$log" 2>&1; then
  echo "install-system-deps: 'apt-get install ${packages[*]}' failed:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "install-system-deps: apt-get installed chromium but $CHROMIUM is missing" >&2
  exit 1
fi
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  echo "install-system-deps: apt-get installed redis-server but it is not on PATH" >&2
  exit 1
fi
