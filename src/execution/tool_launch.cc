#include "execution/tool_launch.h"

namespace mcpsh::execution {

namespace {

// Kept in one string so that a call costs one exec of bash and nothing else.
//
// Why it is written this way:
//  - `bash -p` (see make_tool_launch) ignores functions exported in the environment
//    (BASH_FUNC_read%%) and SHELLOPTS/BASHOPTS, so nothing from the environment runs or
//    applies before the script; `set +p` then leaves nothing of privileged mode behind.
//  - One brace group: bash parses it whole before running any of it, so aliases the
//    script defines cannot change the lines after `source`.
//  - After `source` any command name may be a function of the script. In POSIX mode
//    special builtins (`unset`, `exec`, `exit`) are found before functions: the lines
//    that need them run in POSIX mode, a function named `builtin` is removed, other
//    builtins are called as `builtin X`. Leaving POSIX mode does not restore
//    inherit_errexit and expand_aliases, so the bootstrap does; a script that chose
//    POSIX mode keeps it.
//  - Nothing relies on an exit status the script's `set -e`, `pipefail` or ERR trap
//    could act on: every command that may fail is an `if` condition.
//  - The arguments are read with `$(< file)`: no command to replace, read in blocks
//    (`read -d ''` costs bash a step per byte). /dev/fd/5 opens the file afresh, from
//    its start. Compact JSON has no trailing newline for the substitution to strip.
//  - fds 3 and 5 are closed for good before the tool runs: by `exec` itself (neither a
//    redirection of the call nor `builtin exec`, of which bash keeps a copy to restore).
// The channel protocol on fd 4, one line per message: "progress\t<n>\t<total>\t<message>"
// and "log\t<level>\t<message>" (see mcp_progress and mcp_log below). The helpers are
// defined before the script is sourced, so a script may replace them.
const char* tool_bootstrap() {
  return R"BASH({
__mcp_script=$1
set +p --
# mcp_progress PROGRESS [TOTAL] [MESSAGE] -- report progress (numbers, increasing).
mcp_progress() {
  builtin local m="${3:-}"
  { builtin printf 'progress\t%s\t%s\t%s\n' "${1:-}" "${2:-}" "${m//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
# mcp_log LEVEL MESSAGE -- LEVEL: debug info notice warning error critical alert emergency.
mcp_log() {
  builtin local m="${2:-}"
  { builtin printf 'log\t%s\t%s\n' "${1:-info}" "${m//[$'\t\n']/ }"; } 2>/dev/null >&4 || builtin true
}
# 3<&- 4>&- 5<&-: bash restores these fds after sourcing, so a script that takes them at
# top level (`exec 3>&1`) cannot steal the call, the channel or the arguments.
source "$__mcp_script" </dev/null >&2 3<&- 4>&- 5<&-
__mcp_posix=$SHELLOPTS __mcp_shopts=$BASHOPTS
POSIXLY_CORRECT=y
unset -f builtin
# fd 3 closed without a call: the host no longer needs us.
if ! IFS= TMOUT= builtin read -r __mcp_tool <&3; then exit 0; fi
__mcp_args=$(< /dev/fd/5)
exec 3<&- 5<&-
if [[ :$__mcp_posix: != *:posix:* ]]; then
  unset POSIXLY_CORRECT
  builtin shopt -u inherit_errexit expand_aliases
  if [[ :$__mcp_shopts: == *:inherit_errexit:* ]]; then builtin shopt -s inherit_errexit; fi
  if [[ :$__mcp_shopts: == *:expand_aliases:* ]]; then builtin shopt -s expand_aliases; fi
fi
"tool_$__mcp_tool" "$__mcp_args"
})BASH";
}

}  // namespace

LaunchSpec make_tool_launch(const std::string& bash, const std::string& script,
                            const Limits& limits) {
  LaunchSpec spec;
  spec.argv = {bash, "--noprofile",    "--norc",         "-p",
               "-c", tool_bootstrap(), "mcp-shell-host", script};
  spec.env = {{"MCP_SHELL_HOST", MCPSH_VERSION}};
  spec.channel = true;
  spec.limits = limits;
  return spec;
}

}  // namespace mcpsh::execution
