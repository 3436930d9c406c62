#pragma once
// How one tool call becomes a process: `bash -c BOOTSTRAP` that reads the arguments from
// fd 3, sources the script with its top-level output sent to stderr, and runs
// tool_<name> "$args". Knows bash, not MCP.
#include <string>

#include "execution/launch_spec.h"

namespace mcpsh::execution {

struct ToolLaunch {
  std::string bash;            // absolute path of bash
  std::string script;          // absolute path of the script that defines the tool
  std::string tool;            // name without the tool_ prefix (already validated)
  std::string arguments_json;  // the call's arguments object, compact JSON
  Limits limits;
};

LaunchSpec make_tool_launch(const ToolLaunch& launch);

// The channel protocol on fd 4, one line per message (see the bootstrap's mcp_progress
// and mcp_log): "progress\t<n>\t<total>\t<message>" and "log\t<level>\t<message>".
const char* tool_bootstrap();

}  // namespace mcpsh::execution
