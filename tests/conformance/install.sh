#!/usr/bin/env bash
# ctest fixture for the conformance tests: installs the pinned suite (package-lock.json)
# into tests/conformance/node_modules with `npm ci`, unless the installed tree already
# comes from this very lock file (a stamp in node_modules holds its hash).
# Fails when node or npm is missing or node is older than 22.19 (scripts/install-deps).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=../clients/node_check.sh
source "$here/../clients/node_check.sh"
if ! node_usable || ! command -v npm >/dev/null 2>&1; then
  echo "FAILED: the conformance suite needs node >= 22.19 and npm on PATH ($(node_status)): run scripts/install-deps"
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
# --ignore-scripts: the suite's own `prepare` script builds it from source, which the
# published package (dist/ included) does not need.
(cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
echo "$want" >"$stamp"
echo "npm ci took $((SECONDS - start)) s"
