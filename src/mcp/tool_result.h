#pragma once
// Shapes a finished tool run into the fields of a CallToolResult: the error class of the
// founding decision lives here. A tool's failure is an isError result whose text tells
// the model what happened and what it can do; it is never a JSON-RPC error.
#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "execution/launch_spec.h"
#include "execution/outcome.h"
#include "mcp/content_blocks.h"
#include "schema/json_schema.h"

namespace mcpsh::mcp {

// Lifetime: strings in `result` are not all copied into its allocator. The text of a
// successful call points into the Outcome's stdout_head (a large output is never
// copied), so the Outcome must outlive the result and stay unchanged while it is used;
// what else they point to (a parsed structured output, a composed text) `storage` keeps.
// Moving a ShapedResult keeps every pointer valid.
struct ShapedResult {
  rapidjson::Document result{rapidjson::kObjectType};  // content, isError, structuredContent
  bool is_error = false;
  std::string outcome;  // short machine-readable outcome for the audit log: ok, exit, signal, ...
  std::vector<std::shared_ptr<const void>> storage;
};

// `output_schema` is the tool's compiled outputSchema, if it declares one. The result may
// point into `outcome` (see ShapedResult). `content`: the blocks the tool sent on its side
// channel; they follow the text block (content_blocks.h), which is left out when it is
// empty and blocks follow. Their payloads and the text share limits.max_stdout.
// `noun` names what ran in failure texts ("Tool 'x' failed ...", "Function 'x' ...").
ShapedResult shape_tool_result(const std::string& tool, const execution::Outcome& outcome,
                               const execution::Limits& limits,
                               const schema::CompiledSchema* output_schema,
                               const ToolContent& content = {}, std::string_view noun = "Tool");
// A temporary Outcome would die before the result that points into it.
ShapedResult shape_tool_result(const std::string& tool, execution::Outcome&& outcome,
                               const execution::Limits& limits,
                               const schema::CompiledSchema* output_schema,
                               const ToolContent& content = {},
                               std::string_view noun = "Tool") = delete;

// An isError result with one text block (input validation failures and the like).
ShapedResult error_result(std::string text, std::string outcome);

}  // namespace mcpsh::mcp
