#!/usr/bin/env bash
# Install the system packages Lyra needs besides Python ones: Debian's Chromium, which Playwright
# drives for browser search and page fetching (Playwright's own browser download needs a network
# that CI does not have). Safe to re-run: does nothing when Chromium is already there; quiet
# unless something fails.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: no apt-get here; install Chromium with your package manager," \
       "or run '.venv/bin/playwright install chromium', for Lyra's browser stages" >&2
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    echo "install-system-deps: Chromium is missing and installing it needs root (apt-get install chromium)" >&2
    exit 1
  fi
fi

log=$(mktemp -t lyra-apt.XXXXXX)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq chromium; } >"$log" 2>&1; then
  echo "install-system-deps: 'apt-get install chromium' failed:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "install-system-deps: apt-get installed chromium but $CHROMIUM is missing" >&2
  exit 1
fi
