#!/usr/bin/env bash
# `tests/package/install_test.sh BUILD_DIR`: installs the build tree under test with
# `cmake --install BUILD_DIR --prefix SCRATCH` (nothing outside SCRATCH changes) and uses
# what landed there: the binary's --version, the man page (it renders and documents the
# options), the docs, a real call of an installed example tool, and the systemd units.
# Fails when help2man was missing when the build was configured: the man page is part of
# what is installed.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=check_lib.sh
source "$here/check_lib.sh"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >"$scratch/install.log" ||
  fail "cmake --install failed: $(cat "$scratch/install.log")"

# Only what the install rules name, in the GNU layout.
expect_file "$prefix/bin/mcp-shell-host" -x
for tool in movies files git; do expect_file "$prefix/share/mcp-shell-host/tools/$tool.sh"; done
for doc in README.md VERSIONS.md; do expect_file "$prefix/share/doc/mcp-shell-host/$doc"; done
installed=$(cd "$prefix" && find . -type f) || fail "cannot list $prefix"
unexpected=$(grep -v -E '^\./(bin/mcp-shell-host|share/man/man1/mcp-shell-host\.1|share/mcp-shell-host/tools/[a-z]+\.sh|share/doc/mcp-shell-host/(README|VERSIONS)\.md|lib/systemd/system/mcp-shell-host\.(service|socket))$' <<<"$installed" || true)
[[ -z $unexpected ]] || fail "files nobody asked to install: $unexpected"

man_page=$prefix/share/man/man1/mcp-shell-host.1
[[ -f $man_page ]] || fail "no man page at $man_page: help2man was missing when $build was configured (run scripts/install-deps, then configure again)"
check_man_page "$man_page"
check_installed_host "$prefix/bin/mcp-shell-host" "$prefix/share/mcp-shell-host/tools"
check_service_units "$prefix/lib/systemd/system" "$prefix/bin/mcp-shell-host"
echo "install_test: $(find "$prefix" -type f | wc -l) files installed under the prefix work"
