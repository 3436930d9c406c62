#!/usr/bin/env bash
# `tests/client_config/run.sh CLIENT` (claude-code, gemini or codex): gives what
# `mcp-shell-host config CLIENT` prints to that client's own command line, pinned in
# package-lock.json, with HOME in a scratch folder (the user's configuration is never read
# nor written, and nothing needs the network), then asks the client what it now launches:
# exactly the host, with the options and the script's absolute path, under the name given.
# The `mcp list` of Claude Code and Gemini CLI also starts the server and connects to it.
#
# The script sits in a folder whose name needs quoting in a shell and escaping in TOML
# and JSON ("dir o'brien \"x\""), so each format's quoting is checked by the real reader.
set -euo pipefail
client=$1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
host=${MCPSH_HOST:?MCPSH_HOST names the mcp-shell-host binary under test}
modules=$here/node_modules

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export HOME=$scratch/home
mkdir -p "$HOME" "$scratch/project" "$scratch/bin"
tools_dir="$scratch/dir o'brien \"x\""
mkdir -p "$tools_dir"
cp "$root/tools/movies.sh" "$tools_dir/movies.sh"
script=$(realpath "$tools_dir/movies.sh")
binary=$(realpath "$host")
# What the client must launch: the host, its options as given, the script.
want_args=$(jq -cn --arg s "$script" '["--timeout","30","--no-watch",$s]')

# The clients, by the names the snippets call them.
case $client in
  claude-code)
    claude=$(compgen -G "$modules/@anthropic-ai/claude-code-linux-*/claude" | grep -v musl | head -n 1 || true)
    [[ -x $claude ]] || fail "no Claude Code binary in $modules (tests/npm_ci.sh installs it)"
    ln -s "$claude" "$scratch/bin/claude"
    # No update checks, telemetry or other traffic: the test runs offline.
    export DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1
    ;;
  gemini)
    ln -s "$modules/.bin/gemini" "$scratch/bin/gemini"
    # Servers of an untrusted folder are listed but never started: the scratch folder is
    # trusted, so that `gemini mcp list` connects.
    mkdir -p "$HOME/.gemini"
    echo '{"security":{"folderTrust":{"enabled":false}}}' >"$HOME/.gemini/settings.json"
    ;;
  codex) ln -s "$modules/.bin/codex" "$scratch/bin/codex" ;;
  *) fail "unknown client $client" ;;
esac
export PATH=$scratch/bin:$PATH

snippet=$(cd "$scratch/project" && "$host" config "$client" --name movies --timeout 30 --no-watch \
  "$tools_dir/movies.sh")
echo "--- mcp-shell-host config $client printed:"
echo "$snippet"

# same_launch JSON_COMMAND JSON_ARGS: the client launches exactly the host and want_args.
same_launch() {
  [[ $1 == "$(jq -cn --arg b "$binary" '$b')" ]] || fail "$client launches $1, not $binary"
  [[ $(jq -c . <<<"$2") == "$want_args" ]] || fail "$client passes $2, not $want_args"
}

case $client in
  claude-code)
    (cd "$scratch/project" && bash -c "$snippet") || fail "the claude mcp add line failed"
    config=$(jq -c --arg p "$(realpath "$scratch/project")" '.projects[$p].mcpServers.movies' "$HOME/.claude.json")
    echo "--- ~/.claude.json: $config"
    same_launch "$(jq -c .command <<<"$config")" "$(jq -c .args <<<"$config")"
    list=$(cd "$scratch/project" && timeout 120 claude mcp list 2>&1) || fail "claude mcp list failed: $list"
    echo "--- claude mcp list:"
    echo "$list"
    grep -q '^movies: .*Connected' <<<"$list" || fail "claude mcp list did not connect to the server"
    ;;
  gemini)
    (cd "$scratch/project" && bash -c "$snippet") || fail "the gemini mcp add line failed"
    settings=$scratch/project/.gemini/settings.json
    config=$(jq -c '.mcpServers.movies' "$settings")
    echo "--- .gemini/settings.json: $config"
    same_launch "$(jq -c .command <<<"$config")" "$(jq -c .args <<<"$config")"
    list=$(cd "$scratch/project" && timeout 120 gemini mcp list 2>&1) || fail "gemini mcp list failed: $list"
    echo "--- gemini mcp list:"
    echo "$list"
    grep -q -F "movies: $binary" <<<"$list" || fail "gemini mcp list does not name the server"
    grep -q '^. movies: .* - Connected$' <<<"$list" || fail "gemini mcp list did not connect to the server"
    ;;
  codex)
    mkdir -p "$HOME/.codex"
    printf '%s\n' "$snippet" >"$HOME/.codex/config.toml"
    config=$(cd "$scratch/project" && codex mcp get movies --json) || fail "codex cannot read the snippet: $config"
    echo "--- codex mcp get movies --json: $config"
    same_launch "$(jq -c .transport.command <<<"$config")" "$(jq -c .transport.args <<<"$config")"
    list=$(cd "$scratch/project" && codex mcp list 2>&1) || fail "codex mcp list failed: $list"
    grep -q '^movies ' <<<"$list" || fail "codex mcp list does not name the server: $list"
    ;;
esac
echo "$client: the snippet configures the server exactly"
