#!/bin/sh
# Installs the packages pinned in package-lock.json into tests/wire/node_modules, unless
# every one of them is already there at its pinned version. Exit 77 (skip) without npm.
# Several build directories share this folder, so installs are serialized with flock.
cd "$(dirname "$0")" || exit 1
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "SKIPPED: node and npm are needed for the wire-conformance test (apt-get install nodejs npm)"
  exit 77
fi
in_place() {
  node -e '
    const lock = require("./package-lock.json").packages;
    for (const [dir, entry] of Object.entries(lock))
      if (dir && require("./" + dir + "/package.json").version !== entry.version) process.exit(1);
  ' 2>/dev/null
}
install() {
  if in_place; then
    echo "node_modules matches package-lock.json"
  else
    npm ci --no-audit --no-fund
  fi
}
if command -v flock >/dev/null 2>&1; then
  exec 9>"${TMPDIR:-/tmp}/mcpsh-wire-npm.lock"
  flock 9
fi
install
