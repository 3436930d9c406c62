#pragma once
// The catalog, ready to serve: schemas compiled once, the tools array rendered once.
// A tool whose inputSchema or outputSchema is not a valid schema is not served (it is
// reported as an error problem naming the tool): serving it would mean either skipping
// validation or rejecting every call. Nor is a tool with an invalid x-mcp-header
// annotation: HTTP clients must drop it from their list (x_mcp_header.h), on every
// transport alike so that a script does not serve different tools over stdio and HTTP.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "mcp/text_memo.h"
#include "mcp/x_mcp_header.h"
#include "schema/json_schema.h"

namespace mcpsh::mcp {

// What a tool's definition compiles to: its schemas and x-mcp-header parameters, or why
// the tool cannot be served.
struct CompiledTool {
  bool ok = false;
  std::string error;  // "has an invalid inputSchema: ..." (may be empty when !ok)
  std::optional<schema::CompiledSchema> input;
  std::optional<schema::CompiledSchema> output;
  std::vector<HeaderParam> header_params;
};
CompiledTool compile_tool(const std::string& definition_json);

struct RegisteredTool {
  discovery::ToolEntry entry;
  std::optional<schema::CompiledSchema> input;
  std::optional<schema::CompiledSchema> output;
  std::vector<HeaderParam> header_params;  // x-mcp-header annotations of inputSchema
};

class ToolRegistry {
 public:
  // Appends schema problems to `problems`. With `memo`, a definition compiled by an earlier
  // registry is not compiled again.
  ToolRegistry(const discovery::Catalog& catalog, std::vector<discovery::Problem>& problems,
               TextMemo<CompiledTool>* memo = nullptr);

  const RegisteredTool* find(std::string_view name) const;
  // "[{tool},...]" in list order.
  const std::string& tools_json() const { return tools_json_; }
  // The same for a legacy revision: without the fields it does not define (title,
  // outputSchema before 2025-06-18).
  std::string tools_json_for(std::string_view legacy_version) const;
  std::size_t size() const { return tools_.size(); }
  const RegisteredTool& at(std::size_t i) const { return tools_[i]; }

 private:
  std::vector<RegisteredTool> tools_;
  std::map<std::string, std::size_t, std::less<>> index_;
  std::string tools_json_;
};

}  // namespace mcpsh::mcp
