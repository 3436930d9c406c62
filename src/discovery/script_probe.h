#pragma once
// Sourcing one script in a clean bash to learn what it defines, without letting it touch
// our stdin or stdout: the probe's report travels on stdout, everything the script prints
// at top level goes to stderr (our log).
//
// The probe is immune to what the script and the environment set, like the bootstrap that
// runs calls: exported functions and SHELLOPTS/BASHOPTS from the environment are not
// imported (`bash -p`); after sourcing, the report is made by builtins called as
// `builtin X` in POSIX mode, with the script's options, traps and aliases cleared. The
// script itself is sourced under exactly what it sets, as it is for a call: a script that
// ends while being sourced (top-level `exit` or `exec`, a failure under `set -e` or an
// ERR trap) ends its calls the same way, and the report says so instead of listing tools.
#include <chrono>
#include <string>
#include <vector>

#include "execution/launch_spec.h"

namespace mcpsh::discovery {

struct FunctionSite {
  std::string name;  // tool_<...>, resource_<...>, prompt_<...> or complete_<...>
  int line = 0;      // 1-based line of the definition
  std::string file;  // the file that defines it (may be a file the script sourced)
};

struct ProbeReport {
  bool completed = false;     // the probe reached its end
  bool syntax_error = false;  // bash -n rejected the script
  bool sourced = false;       // `source script` returned (its status line was seen)
  int source_status = 0;      // status of `source script`
  std::vector<FunctionSite> functions;
  // "fn" lines without a line number and a file: the report cannot be trusted, since the
  // tools' metadata would be read from nowhere.
  std::vector<std::string> malformed;
  std::string tools_list_file;  // MCP_TOOLS_LIST_FILE after sourcing ("" if unset)
  std::string config_file;      // MCP_CONFIG_FILE after sourcing
};

execution::LaunchSpec make_probe_launch(const std::string& bash, const std::string& script,
                                        std::chrono::milliseconds timeout);
ProbeReport parse_probe_report(const std::string& stdout_text);

}  // namespace mcpsh::discovery
