#pragma once
// How a tool call becomes a process: `bash -p -c BOOTSTRAP _ SCRIPT` sources the script
// (its top-level output sent to stderr, stdin /dev/null), then waits on fd 3 for exactly
// one call: a line with the function to run (tool_<name>, resource_<name>, prompt_<name> or
// complete_<name>). The call's arguments are in fd 5, a file of the process's own that the
// host fills before writing that line. The bootstrap reads them, closes fds 3 and 5 and
// runs FUNCTION "$args". Knows bash, not MCP.
//
// The bootstrap is immune to what the script and the environment set: exported functions
// and SHELLOPTS/BASHOPTS from the environment are not imported (-p), it calls builtins as
// `builtin X` after removing a function named `builtin`, reads with constructs no function
// or alias can replace, and relies on no exit status that errexit or an ERR trap could
// turn into an exit. The tool then runs under exactly the options, traps and functions
// the script left in force.
//
// The same bootstrap serves a fresh spawn (the call is written at once) and a process
// started ahead of time (the call is written when one comes; see ToolExecutor).
#include <string>

#include "execution/launch_spec.h"

namespace mcpsh::execution {

struct ToolLaunch {
  std::string script;  // absolute path of the script that defines the tool
  // The function to run, with its prefix: tool_<name>, resource_<name>, prompt_<name> or
  // complete_<name>, the name already validated ([A-Za-z0-9_.-]).
  std::string function;
  std::string arguments_json;  // the call's arguments object, compact JSON
  Limits limits;
  Confinement confinement;
};

// The spec for one bootstrap process; the caller sets spec.fd3 to the read end of the
// pipe it will write the function's name to, and spec.fd5 to the file holding the arguments
// (read from offset 0; compact JSON, so no trailing newline to lose).
LaunchSpec make_tool_launch(const std::string& bash, const std::string& script,
                            const Limits& limits, const Confinement& confinement = {});

}  // namespace mcpsh::execution
