#include "execution/tool_launch.h"

namespace mcpsh::execution {

namespace {

// Kept in one string so that a call costs one exec of bash and nothing else. The helper
// functions are defined before the script is sourced, so a script may replace them.
// `read ... || exit 0`: fd 3 closed without a call means the host no longer needs us.
// The channel protocol on fd 4, one line per message: "progress\t<n>\t<total>\t<message>"
// and "log\t<level>\t<message>" (see mcp_progress and mcp_log below).
const char* tool_bootstrap() {
  return R"BASH(__mcp_script=$1
set --
# mcp_progress PROGRESS [TOTAL] [MESSAGE] -- report progress (numbers, increasing).
mcp_progress() {
  local m="${3:-}"
  printf 'progress\t%s\t%s\t%s\n' "${1:-}" "${2:-}" "${m//[$'\t\n']/ }" >&4 2>/dev/null
  return 0
}
# mcp_log LEVEL MESSAGE -- LEVEL: debug info notice warning error critical alert emergency.
mcp_log() {
  local m="${2:-}"
  printf 'log\t%s\t%s\n' "${1:-info}" "${m//[$'\t\n']/ }" >&4 2>/dev/null
  return 0
}
# 3<&- 4>&-: bash restores fds 3 and 4 after sourcing, so a script that takes them at top
# level (`exec 3>&1`) cannot steal the call or the channel.
source "$__mcp_script" </dev/null >&2 3<&- 4>&-
IFS= read -r __mcp_tool <&3 || exit 0
IFS= read -r __mcp_args <&3 || exit 0
exec 3<&-
IFS= read -r -d '' __mcp_args <"$__mcp_args"
"tool_$__mcp_tool" "$__mcp_args"
)BASH";
}

}  // namespace

LaunchSpec make_tool_launch(const std::string& bash, const std::string& script,
                            const Limits& limits) {
  LaunchSpec spec;
  spec.argv = {bash, "--noprofile", "--norc", "-c", tool_bootstrap(), "mcp-shell-host", script};
  spec.env = {{"MCP_SHELL_HOST", MCPSH_VERSION}};
  spec.channel = true;
  spec.limits = limits;
  return spec;
}

}  // namespace mcpsh::execution
