#pragma once
// How a tool call becomes a process: `bash -p -c BOOTSTRAP _ SCRIPT` sources the script
// (its top-level output sent to stderr, stdin /dev/null), then waits on fd 3 for exactly
// one call: a line "FUNCTION CAPABILITIES COUNT MODE" with the function to run
// (tool_<name>, resource_<name>, prompt_<name> or complete_<name>), what the client can
// answer (ToolLaunch::client_capabilities, "-" for nothing), how many answer lines follow
// the arguments, and how a question is answered: "end" (the run ends, the call is
// retried with the answers) or "wait" (ToolLaunch::replies: answer lines come on fd 3,
// which the bootstrap keeps open above fd 9). The call's arguments are in fd 5, a file of the
// process's own that the host fills before writing that line: the arguments alone, or, when COUNT
// is not 0, the arguments, a newline and the answer lines. The bootstrap reads them, closes fds 3
// and 5 and runs FUNCTION "$args". Knows bash, not MCP.
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
  // What the client can answer when the tool asks (mcp_elicit and the like): a comma-
  // separated subset of elicitation,sampling,roots; empty when it can answer nothing.
  std::string client_capabilities;
  // The client's answers to what the tool asked in earlier rounds, as
  // asking::tool_input_lines writes them, and how many lines that is (0: none). A first
  // line "!confirm<TAB>MESSAGE" (MESSAGE escaped the same way) makes the bootstrap ask
  // the user to confirm MESSAGE (key mcp-shell-host:confirm) before the function runs.
  std::string inputs;
  std::size_t input_count = 0;
  // The call may get answers while it runs (the legacy era: the host asks the client with
  // a request of its own): fd 3 stays open as the tool's reply descriptor, and a helper
  // that asks waits there instead of ending the run.
  bool replies = false;
};

// The spec for one bootstrap process; the caller sets spec.fd3 to the read end of the
// pipe it will write the function's name to, and spec.fd5 to the file holding the arguments
// (read from offset 0; compact JSON, so no trailing newline to lose).
LaunchSpec make_tool_launch(const std::string& bash, const std::string& script,
                            const Limits& limits, const Confinement& confinement = {});

}  // namespace mcpsh::execution
