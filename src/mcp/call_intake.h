#pragma once
// tools/call params -> what to run: the tool (which must exist and be implemented), its
// arguments (an object, valid against the tool's inputSchema) and its limits. Pure.
#include <rapidjson/document.h>

#include <string>
#include <variant>

#include "execution/tool_launch.h"
#include "mcp/exchange.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_result.h"

namespace mcpsh::mcp {

struct CallPlan {
  const RegisteredTool* tool;
  execution::ToolLaunch launch;
};

// The client's error: a JSON-RPC error is sent.
struct CallRefusal {
  int code;
  std::string message;
};

// Sets exchange.tool once the name is known and exchange.argument_names once the tool is.
// Arguments that violate the inputSchema are the model's error: an isError result.
std::variant<CallPlan, CallRefusal, ShapedResult> take_call(const rapidjson::Value* params,
                                                            const ToolRegistry& registry,
                                                            const execution::Limits& defaults,
                                                            Exchange& exchange);

}  // namespace mcpsh::mcp
