#!/usr/bin/env bash
# ctest fixture of the node-based tests: `tests/npm_ci.sh DIR WHAT` installs the npm
# packages pinned by DIR/package-lock.json into DIR/node_modules with `npm ci`, unless the
# installed tree already comes from this very lock file (a stamp in node_modules holds its
# hash). WHAT names the tests for the error message. Fails when node or npm is missing or
# node is older than 22.19 (scripts/install-deps provides them).
set -euo pipefail
dir=$(cd "$1" && pwd)
what=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=clients/node_check.sh
source "$here/clients/node_check.sh"
if ! node_usable || ! command -v npm >/dev/null 2>&1; then
  echo "FAILED: $what need node >= 22.19 and npm on PATH ($(node_status)): run scripts/install-deps"
  exit 1
fi

stamp=$dir/node_modules/.mcpsh-lock-sha256
want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
# Build directories share this source tree: one npm ci at a time. npm ci never writes
# package-lock.json, so the lock file itself can carry the lock.
exec 9<"$dir/package-lock.json"
flock 9
if [[ -f $stamp && $(<"$stamp") == "$want" ]]; then
  echo "node_modules is up to date with package-lock.json"
  exit 0
fi
start=$SECONDS
# --ignore-scripts: no pinned package needs its install script (the Inspector's postinstall
# only installs its own sub-clients in a source checkout; the conformance suite's `prepare`
# builds it from source, which the published package, dist/ included, does not need).
(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --engine-strict=false --loglevel=error)
echo "$want" >"$stamp"
echo "npm ci took $((SECONDS - start)) s"
