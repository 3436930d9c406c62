#pragma once
// Sourcing one script in a clean bash to learn what it defines, without letting it touch
// our stdin or stdout: the probe's report travels on its own descriptor, everything the
// script prints at top level goes to stderr (our log).
#include <optional>
#include <string>
#include <vector>

#include "execution/launch_spec.h"

namespace mcpsh::discovery {

struct FunctionSite {
  std::string name;  // tool_<...>
  int line = 0;      // 1-based line of the definition
  std::string file;  // the file that defines it (may be a file the script sourced)
};

struct ProbeReport {
  bool completed = false;     // the probe reached its end
  bool syntax_error = false;  // bash -n rejected the script
  int source_status = 0;      // status of `source script`
  std::vector<FunctionSite> functions;
  std::string tools_list_file;  // MCP_TOOLS_LIST_FILE after sourcing ("" if unset)
  std::string config_file;      // MCP_CONFIG_FILE after sourcing
};

execution::LaunchSpec make_probe_launch(const std::string& bash, const std::string& script,
                                        std::chrono::milliseconds timeout);
ProbeReport parse_probe_report(const std::string& stdout_text);

}  // namespace mcpsh::discovery
