#include "discovery/script_probe.h"

#include <sstream>

namespace mcpsh::discovery {

namespace {
// stdout carries the report. The script's own output goes to stderr through a redirection
// of the `source` command alone, which bash undoes afterwards: whatever descriptors the
// script takes at top level (`exec 9>lock`, `exec >/dev/null`), the report still reaches
// our stdout and never lands in the script's files.
constexpr const char* kProbe = R"BASH(__mcp_script=$1
set --
exec </dev/null
if ! "$BASH" -n "$__mcp_script" >&2; then printf 'syntax\n'; exit 0; fi
{ source "$__mcp_script"; } >&2
printf 'status %s\n' "$?"
shopt -s extdebug
for __mcp_f in $(compgen -A function tool_); do
  printf 'fn '
  declare -F "$__mcp_f"
done
printf 'var MCP_TOOLS_LIST_FILE %s\n' "${MCP_TOOLS_LIST_FILE-}"
printf 'var MCP_CONFIG_FILE %s\n' "${MCP_CONFIG_FILE-}"
printf 'end\n'
)BASH";
}  // namespace

execution::LaunchSpec make_probe_launch(const std::string& bash, const std::string& script,
                                        std::chrono::milliseconds timeout) {
  execution::LaunchSpec spec;
  spec.argv = {bash, "--noprofile", "--norc", "-c", kProbe, "mcp-shell-host-probe", script};
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
      if (!site.name.empty()) r.functions.push_back(std::move(site));
    }
  }
  return r;
}

}  // namespace mcpsh::discovery
