#!/usr/bin/env bash
# ctest fixture for the client tests: installs the pinned npm packages (package-lock.json)
# into tests/clients/node_modules with `npm ci`, unless the installed tree already comes
# from this very lock file (a stamp in node_modules holds its hash).
# Fails when node or npm is missing or node is older than 22.19 (scripts/install-deps).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=SCRIPTDIR/node_check.sh
source "$here/node_check.sh"
if ! node_usable || ! command -v npm >/dev/null 2>&1; then
  echo "FAILED: the client tests need node >= 22.19 and npm on PATH ($(node_status)): run scripts/install-deps"
  exit 1
fi

stamp=$here/node_modules/.mcpsh-lock-sha256
want=$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)
# Build directories share this source tree: one npm ci at a time. npm ci never writes
# package-lock.json, so the lock file itself can carry the lock.
exec 9<"$here/package-lock.json"
flock 9
if [[ -f $stamp && $(<"$stamp") == "$want" ]]; then
  echo "node_modules is up to date with package-lock.json"
  exit 0
fi
start=$SECONDS
# --ignore-scripts: none of the pinned packages needs its install script (the Inspector's
# postinstall only installs its own sub-clients in a source checkout).
(cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --engine-strict=false --loglevel=error)
echo "$want" >"$stamp"
echo "npm ci took $((SECONDS - start)) s"
