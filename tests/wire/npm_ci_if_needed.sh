#!/bin/sh
# Installs the packages pinned in package-lock.json into tests/wire/node_modules, unless
# every one of them is already there at its pinned version. node and npm come first on
# PATH from tests/wire/CMakeLists.txt (tests/node.cmake).
# Several build directories share this folder, so installs are serialized with flock.
cd "$(dirname "$0")" || exit 1
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
exec 9>"${TMPDIR:-/tmp}/mcpsh-wire-npm.lock"
flock 9
install
