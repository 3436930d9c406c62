#include "discovery/script_probe.h"

#include <sstream>

namespace mcpsh::discovery {

namespace {
// stdout carries the report. Why it is written this way:
//  - `bash -p` (see make_probe_launch) ignores functions exported in the environment
//    (BASH_FUNC_source%%) and SHELLOPTS/BASHOPTS; `set +p` leaves nothing of privileged
//    mode to the script. The syntax check runs with -p for the same reason.
//  - The syntax check parses the script's text in this shell, before anything of it runs:
//    `eval` of "set -n" and the text inside a function with `local -` (bash 4.4), so that
//    noexec reads every command and runs none, and is undone when the function returns. The
//    text goes through the parser on its own, not inside a wrapper it could close. This
//    spares a `bash -n` process (about a third of a probe's CPU), which still gives the
//    verdict and its message whenever the check here cannot: an error found, the file
//    unreadable or empty, a NUL byte in it (a variable cannot hold one), an older bash.
//    And past 64 KiB of text, where parsing a string (~0.1 ms per KiB here) costs more
//    than the process.
//  - One brace group: bash parses it whole before running any of it, so aliases the
//    script defines cannot change the lines after `source`.
//  - `source` is a plain command, as in a call: under the script's `set -e` or ERR trap a
//    failure ends the probe exactly where it would end every call.
//  - The script's output goes to stderr through a redirection of the group alone, which
//    bash undoes afterwards: whatever descriptors the script takes at top level
//    (`exec 9>lock`, `exec >/dev/null`), the report still reaches our stdout. The first
//    lines after `source` are inside it too, so that a DEBUG trap of the script, which
//    runs before each of them, cannot write into the report.
//  - After `source` any command name may be a function of the script. In POSIX mode
//    special builtins (`trap`, `set`, `unset`) are found before functions: the probe
//    enters it, clears the script's traps and options, removes a function named
//    `builtin`, and calls every other builtin as `builtin X`, re-enabled in case the
//    script disabled it. Aliases are removed before the command substitution, which bash
//    parses again when it runs it. Then it leaves POSIX mode: there `declare -F` rejects
//    function names that are not identifiers, and tool names may have dots and dashes.
//    The script's xtrace and verbose are turned off too, so that the log holds what the
//    script printed and not a trace of the probe.
//  - The function names are split by mapfile, not by IFS, which the script may have set.
//  - The names travel through a file, not a command substitution (a fork of this shell,
//    ~4 ms here; bash 5.2 has no substitution without one): fd 3, a memfd of the host's.
//    Before sourcing, the probe writes a mark line into it; after, it reads the file back
//    through /proc/self/fd/3 (an open file of its own, from the start). The script is
//    sourced with fd 3 closed, as a call sources it (tool_launch.cc), and bash gives fd 3
//    back after `source`, whatever the script did with it. Even so the file is used only if
//    fd 3 is a regular file that starts with the mark, so that nothing is ever written into
//    a file of the script's or read from a pipe that could wait; else the substitution.
//    The names are the lines between "MARK names" and "MARK end": a list whose last
//    writes failed (a memory limit) has no end line and falls back too. (bash's builtins
//    do not report a failed write in their status; a write that failed in the middle
//    while the end line still fit would go unnoticed, which is why the host gives no
//    memfd under a file-size limit, the one limit that fails writes by their size.)
constexpr const char* kProbe = R"BASH({
__mcp_script=$1
set +p --
exec </dev/null
__mcp_mark="mcp-shell-host probe $$ $RANDOM$RANDOM"
{ printf '%s\n' "$__mcp_mark" >&3; } 2>/dev/null
__mcp_parses() { local -; eval "set -n
$1"; }
__mcp_text= __mcp_read=
if ((BASH_VERSINFO[0] * 100 + BASH_VERSINFO[1] >= 404)); then
  { IFS= read -r -d '' __mcp_text; __mcp_read=$?; } <"$__mcp_script" 2>/dev/null
fi
if [[ $__mcp_read != 1 || -z $__mcp_text || ${#__mcp_text} -gt 65536 ]] ||
  ! __mcp_parses "$__mcp_text" 2>/dev/null; then
  if ! "$BASH" -p -n "$__mcp_script" >&2; then printf 'syntax\n'; exit 0; fi
fi
unset -v __mcp_text __mcp_read
unset -f __mcp_parses
{
  source "$__mcp_script" 3<&-
  __mcp_status=$?
  POSIXLY_CORRECT=y
  trap - DEBUG ERR RETURN
} >&2
set +eETuvx +o pipefail
unset -f builtin
builtin enable printf compgen declare mapfile shopt unalias read
builtin unalias -a
builtin shopt -u expand_aliases
unset POSIXLY_CORRECT
builtin printf 'status %s\n' "$__mcp_status"
builtin shopt -s extdebug
__mcp_first= __mcp_fns=() __mcp_at= __mcp_listed=
if [[ -f /proc/self/fd/3 ]] && { IFS= builtin read -r __mcp_first </proc/self/fd/3; } 2>/dev/null &&
  [[ $__mcp_first == "$__mcp_mark" ]]; then
  {
    builtin printf '%s\n' "$__mcp_mark names"
    for __mcp_p in tool_ resource_ prompt_ complete_; do builtin compgen -A function "$__mcp_p"; done
    builtin printf '%s\n' "$__mcp_mark end"
  } >&3 2>/dev/null
  builtin mapfile -t __mcp_lines </proc/self/fd/3
  for __mcp_i in "${!__mcp_lines[@]}"; do
    case ${__mcp_lines[__mcp_i]} in
      "$__mcp_mark names") __mcp_at=$((__mcp_i + 1)) ;;
      "$__mcp_mark end")
        if [[ -n $__mcp_at ]]; then
          __mcp_fns=("${__mcp_lines[@]:__mcp_at:__mcp_i-__mcp_at}") __mcp_listed=y
        fi
        ;;
    esac
  done
fi
if [[ -z $__mcp_listed ]]; then
  __mcp_fns=$(for __mcp_p in tool_ resource_ prompt_ complete_; do builtin compgen -A function "$__mcp_p"; done)
  builtin mapfile -t __mcp_fns <<<"$__mcp_fns"
fi
for __mcp_f in "${__mcp_fns[@]}"; do
  if [[ -n $__mcp_f ]]; then builtin printf 'fn '; builtin declare -F -- "$__mcp_f"; fi
done
builtin printf 'var MCP_TOOLS_LIST_FILE %s\n' "${MCP_TOOLS_LIST_FILE-}"
builtin printf 'var MCP_CONFIG_FILE %s\n' "${MCP_CONFIG_FILE-}"
builtin printf 'end\n'
})BASH";
}  // namespace

execution::LaunchSpec make_probe_launch(const std::string& bash, const std::string& script,
                                        std::chrono::milliseconds timeout) {
  execution::LaunchSpec spec;
  spec.argv = {bash, "--noprofile", "--norc", "-p", "-c", kProbe, "mcp-shell-host-probe", script};
  spec.env = {{"MCP_SHELL_HOST", MCPSH_VERSION}};
  spec.limits.timeout = timeout;
  spec.limits.kill_grace = std::chrono::milliseconds(500);
  spec.limits.max_stdout = 4 << 20;
  return spec;
}

ProbeReport parse_probe_report(const std::string& text) {
  ProbeReport r;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line == "syntax") {
      r.syntax_error = true;
    } else if (line == "end") {
      r.completed = true;
    } else if (line.rfind("status ", 0) == 0) {
      r.sourced = true;
      r.source_status = std::atoi(line.c_str() + 7);
    } else if (line.rfind("var MCP_TOOLS_LIST_FILE ", 0) == 0) {
      r.tools_list_file = line.substr(24);
    } else if (line.rfind("var MCP_CONFIG_FILE ", 0) == 0) {
      r.config_file = line.substr(20);
    } else if (line.rfind("fn ", 0) == 0) {
      // "fn NAME LINE FILE" (FILE may contain spaces)
      std::istringstream f(line.substr(3));
      FunctionSite site;
      f >> site.name >> site.line;
      std::getline(f, site.file);
      if (!site.file.empty() && site.file[0] == ' ') site.file.erase(0, 1);
      if (site.name.empty()) continue;
      if (site.line <= 0 || site.file.empty())
        r.malformed.push_back(line);
      else
        r.functions.push_back(std::move(site));
    }
  }
  return r;
}

}  // namespace mcpsh::discovery
