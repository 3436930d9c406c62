# shellcheck shell=bash
# Sourced by install.sh and run.sh: is a node that the pinned clients support on PATH?
node_usable() {
  command -v node >/dev/null 2>&1 || return 1
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null) || return 1
  ((major >= 20))
}

node_status() {
  if command -v node >/dev/null 2>&1; then
    echo "node $(node --version 2>&1), npm $(npm --version 2>/dev/null || echo missing)"
  else
    echo "node not found"
  fi
}
