# shellcheck shell=bash
# Sourced by tests/npm_ci.sh and the run scripts: is a node that the pinned clients support first on PATH?
# (tests/node.cmake puts the one it picked there; the Inspector needs 22.19 or newer.)
# Run by hand, the pinned node that scripts/install-deps puts in tests/node comes first too.
pinned_node_bin=$(cd "$(dirname "${BASH_SOURCE[0]}")/../node/node_modules/.bin" 2>/dev/null && pwd) || true
if [[ -n $pinned_node_bin && -x $pinned_node_bin/node ]]; then PATH=$pinned_node_bin:$PATH; fi
node_usable() {
  command -v node >/dev/null 2>&1 || return 1
  node -e '
    const [major, minor] = process.versions.node.split(".").map(Number);
    process.exit(major > 22 || (major === 22 && minor >= 19) ? 0 : 1);
  ' 2>/dev/null
}

node_status() {
  if command -v node >/dev/null 2>&1; then
    echo "node $(node --version 2>&1), npm $(npm --version 2>/dev/null || echo missing)"
  else
    echo "node not found"
  fi
}
