#!/usr/bin/env bash
# Runs one client test file (an ES module for node's built-in test runner).
# Usage: run.sh FILE.test.mjs   with MCPSH_HOST and MCPSH_ROOT set (see CMakeLists.txt).
# Fails when node is missing or too old (scripts/install-deps provides it).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# shellcheck source=SCRIPTDIR/node_check.sh
source "$here/node_check.sh"
if ! node_usable; then
  echo "FAILED: the client tests need node >= 22.19 on PATH ($(node_status)): run scripts/install-deps"
  exit 1
fi
if [[ ! -f $here/node_modules/.mcpsh-lock-sha256 ]]; then
  echo "FAIL: the client packages are not installed: see the clients.install test"
  exit 1
fi
cd "$here"
flags=(--test --test-reporter=spec)
# A test that fails with a host still running must not wait for the ctest timeout
# (node >= 20.14 has this flag; the tests also close their clients in `finally`).
if node --help | grep -q -- --test-force-exit; then flags+=(--test-force-exit); fi
exec node "${flags[@]}" "$here/$1"
