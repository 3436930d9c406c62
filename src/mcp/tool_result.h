#pragma once
// Shapes a finished tool run into the fields of a CallToolResult: the error class of the
// founding decision lives here. A tool's failure is an isError result whose text tells
// the model what happened and what it can do; it is never a JSON-RPC error.
#include <rapidjson/document.h>

#include <optional>
#include <string>

#include "execution/launch_spec.h"
#include "execution/outcome.h"
#include "schema/json_schema.h"

namespace mcpsh::mcp {

struct ShapedResult {
  rapidjson::Document result{rapidjson::kObjectType};  // content, isError, structuredContent
  bool is_error = false;
  std::string outcome;  // short machine-readable outcome for the audit log: ok, exit, signal, ...
};

// `output_schema` is the tool's compiled outputSchema, if it declares one.
ShapedResult shape_tool_result(const std::string& tool, const execution::Outcome& outcome,
                               const execution::Limits& limits,
                               const schema::CompiledSchema* output_schema);

// An isError result with one text block (input validation failures and the like).
ShapedResult error_result(std::string text, std::string outcome);

}  // namespace mcpsh::mcp
