#pragma once
// How a tool call becomes a process: `bash -c BOOTSTRAP _ SCRIPT` sources the script (its
// top-level output sent to stderr, stdin /dev/null), then waits on fd 3 for exactly one
// call: a line with the tool name, a line with the path of a file holding the arguments.
// It reads the arguments, closes fd 3 and runs tool_<name> "$args". Knows bash, not MCP.
//
// The same bootstrap serves a fresh spawn (the call is written at once) and a process
// started ahead of time (the call is written when one comes; see ToolExecutor).
#include <string>

#include "execution/launch_spec.h"

namespace mcpsh::execution {

struct ToolLaunch {
  std::string script;          // absolute path of the script that defines the tool
  std::string tool;            // name without the tool_ prefix (already validated)
  std::string arguments_json;  // the call's arguments object, compact JSON
  Limits limits;
};

// The spec for one bootstrap process; the caller sets spec.fd3 to the read end of the
// pipe it will write the call to.
LaunchSpec make_tool_launch(const std::string& bash, const std::string& script,
                            const Limits& limits);

}  // namespace mcpsh::execution
