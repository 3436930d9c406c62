# shellcheck shell=bash
# Checks shared by install_test.sh and deb_test.sh: an installed mcp-shell-host works.
# Sourced; each check prints what went wrong and exits 1.

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# expect_file PATH [-x]: a regular file (executable with -x).
expect_file() {
  [[ -f $1 ]] || fail "$1 is missing"
  if [[ ${2:-} == -x && ! -x $1 ]]; then fail "$1 is not executable"; fi
}

# check_man_page FILE: man renders it, and it carries the usage and the options of --help.
check_man_page() {
  local text
  text=$(MANWIDTH=100 man -l "$1" 2>&1) || fail "man -l $1 failed: $text"
  for word in NAME Usage: OPTIONS --timeout --max-output "config CLIENT" EXAMPLES; do
    grep -q -F -e "$word" <<<"$text" || fail "the man page does not mention $word:
$text"
  done
}

# check_installed_host BINARY TOOLS_DIR: --version, then a real tools/call of the
# installed cinema example, then the config verb naming the installed paths.
check_installed_host() {
  local host=$1 tools=$2 out
  out=$("$host" --version) || fail "$host --version failed"
  [[ $out =~ ^mcp-shell-host\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "$host --version printed: $out"
  out=$(cd / && "$host" call "$tools/movies.sh" --tool check_age \
    --args '{"movieId":4,"customerAge":21}') || fail "the installed movies.sh check_age call failed: $out"
  grep -q -F 'ok: a customer aged 21 may watch' <<<"$out" || fail "check_age answered: $out"
  out=$("$host" call "$tools/movies.sh" --tool check_age --args '{"movieId":4,"customerAge":16}') &&
    fail "an under-age check_age succeeded: $out"
  out=$("$host" config codex "$tools/movies.sh" 2>/dev/null) || fail "config codex failed"
  grep -q -F "command = \"$(realpath "$host")\"" <<<"$out" || fail "config does not name $host: $out"
  grep -q -F "args = [\"$(realpath "$tools/movies.sh")\"]" <<<"$out" ||
    fail "config does not name the installed movies.sh: $out"
}

# check_service_units UNIT_DIR BINARY [WHERE]: the systemd units are there, the service
# starts BINARY, and `systemd-analyze verify` finds nothing to say about them (it reads
# unit files offline: no running systemd is needed). WHERE is where BINARY really is when
# it was unpacked elsewhere (dpkg -x): verify then reads a copy that names WHERE.
check_service_units() {
  local dir=$1 binary=$2 where=${3:-$2} out copy
  expect_file "$dir/mcp-shell-host.service"
  expect_file "$dir/mcp-shell-host.socket"
  grep -q -x -F -e "ExecStart=$binary --http --audit-log \${LOGS_DIRECTORY}/audit.jsonl --state-key-file \${STATE_DIRECTORY}/state.key /etc/mcp-shell-host/tools" \
    "$dir/mcp-shell-host.service" || fail "the service does not start $binary: $(grep ExecStart= "$dir/mcp-shell-host.service")"
  command -v systemd-analyze >/dev/null || fail "systemd-analyze is needed: run scripts/install-deps"
  copy=$(mktemp -d)
  sed "s|^ExecStart=$binary |ExecStart=$where |" "$dir/mcp-shell-host.service" >"$copy/mcp-shell-host.service"
  cp "$dir/mcp-shell-host.socket" "$copy/"
  out=$(systemd-analyze verify --man=no "$copy/mcp-shell-host.service" "$copy/mcp-shell-host.socket" 2>&1) ||
    fail "systemd-analyze verify refused the units: $out"
  rm -rf "$copy"
  [[ -z $out ]] || fail "systemd-analyze verify has something to say about the units: $out"
}
