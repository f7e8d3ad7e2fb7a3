#!/usr/bin/env bash
# Install the system packages Lyra needs besides Python ones: Debian's Chromium, which Playwright
# drives for browser search and page fetching (Playwright's own browser download needs a network
# that CI does not have), Debian's PostgreSQL, whose binaries the tests of the cluster profile
# start a throw-away server with (the service itself is not needed), and Debian's redis-server,
# the broker those tests start. Safe to re-run: does nothing when all are already there; quiet
# unless something fails.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
# The tests look for initdb and pg_ctl here (tests/fixtures/postgres_server.py; LYRA_TEST_PG_BIN overrides).
PG_BIN=${LYRA_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}

missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
[ -x "$PG_BIN/initdb" ] || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-system-deps: no apt-get here; install ${missing[*]} with your package manager" \
       "(or run '.venv/bin/playwright install chromium' for Lyra's browser stages)" >&2
  exit 0
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n)
  else
    echo "install-system-deps: ${missing[*]} missing and installing needs root (apt-get install ${missing[*]})" >&2
    exit 1
  fi
fi

log=$(mktemp -t lyra-apt.XXXXXX)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq "${missing[@]}"; } >"$log" 2>&1; then
  echo "install-system-deps: 'apt-get install ${missing[*]}' failed:" >&2
  tail -n 20 "$log" >&2
  exit 1
fi
if [ ! -x "$CHROMIUM" ]; then
  echo "install-system-deps: apt-get installed chromium but $CHROMIUM is missing" >&2
  exit 1
fi
if [ ! -x "$PG_BIN/initdb" ]; then
  echo "install-system-deps: apt-get installed postgresql but $PG_BIN/initdb is missing" \
       "(another major version? set LYRA_TEST_PG_BIN to its bin folder)" >&2
  exit 1
fi
if ! command -v redis-server >/dev/null 2>&1 && [ ! -x /usr/bin/redis-server ]; then
  echo "install-system-deps: apt-get installed redis-server but it is not on PATH" >&2
  exit 1
fi
