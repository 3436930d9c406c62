#!/usr/bin/env bash
# `tests/package/deb_test.sh`: builds the Debian package with scripts/package (in
# $BUILD_DIR, default build-package/) and checks it without installing it: its control
# fields (Depends: bash and the shared libraries the binary links, Recommends: jq, the
# project's version), its file list, and the binary and example tools unpacked with
# `dpkg -x` into a scratch folder: --version, the man page, a real call. ctest runs it on
# the Release build tree it tests (tests/package/CMakeLists.txt), where the build step
# has nothing left to do.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=check_lib.sh
source "$here/check_lib.sh"

deb=$("$root/scripts/package") || fail "scripts/package failed"
[[ -f $deb ]] || fail "scripts/package printed \"$deb\", which is not a file"
echo "deb_test: checking $deb"

field() { dpkg-deb -f "$deb" "$1"; }
version=$(sed -n 's/^project(mcp-shell-host VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
[[ $(field Package) == mcp-shell-host ]] || fail "Package: $(field Package)"
[[ $(field Version) == "$version" ]] || fail "Version: $(field Version), the project's is $version"
depends=$(field Depends)
for want in 'bash' 'libc6 (>=' 'libstdc++6 (>=' 'libboost-program-options1.81.0'; do
  grep -q -F -e "$want" <<<"$depends" || fail "Depends: lacks $want: $depends"
done
[[ $(field Recommends) == jq ]] || fail "Recommends: $(field Recommends)"
dpkg-deb -I "$deb" >/dev/null || fail "dpkg-deb -I cannot read the package"

listing=$(dpkg-deb -c "$deb" | awk '{print $NF}')
for path in ./usr/bin/mcp-shell-host ./usr/share/man/man1/mcp-shell-host.1 \
  ./usr/share/mcp-shell-host/tools/movies.sh ./usr/share/doc/mcp-shell-host/README.md \
  ./usr/lib/systemd/system/mcp-shell-host.service ./usr/lib/systemd/system/mcp-shell-host.socket; do
  grep -q -x -F -e "$path" <<<"$listing" || fail "the package lacks $path:
$listing"
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
dpkg -x "$deb" "$scratch"
check_man_page "$scratch/usr/share/man/man1/mcp-shell-host.1"
check_installed_host "$scratch/usr/bin/mcp-shell-host" "$scratch/usr/share/mcp-shell-host/tools"
check_service_units "$scratch/usr/lib/systemd/system" /usr/bin/mcp-shell-host "$scratch/usr/bin/mcp-shell-host"
echo "deb_test: $(basename "$deb") is complete and works (Depends: $depends)"
