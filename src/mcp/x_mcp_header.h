#pragma once
// `x-mcp-header` in a tool's inputSchema (MCP 2026-07-28, server-tools.mdx and "Custom
// Headers from Tool Parameters" in the Streamable HTTP transport): a property whose value
// an HTTP client mirrors into an `Mcp-Param-{Name}` header, and the host checks against
// the arguments. A tool with an invalid annotation is one HTTP clients must drop, so the
// registry does not serve it. Pure: no state, any thread.
#include <rapidjson/document.h>

#include <string>
#include <variant>
#include <vector>

namespace mcpsh::mcp {

struct HeaderParam {
  std::string name;               // {Name} of Mcp-Param-{Name}, as declared
  std::vector<std::string> path;  // the property names from the root, one per `properties`
};

// The annotations of `input_schema`, in schema order, or why they make the tool invalid:
//  - the value is a non-empty string of HTTP token characters (RFC 9110 `tchar`: no space,
//    no ':', no control character, ASCII only);
//  - it sits on a property reached from the root through `properties` alone (not under
//    items, $defs, a composition, a condition or a $ref target), and not on the root;
//  - that property's `type` is string, integer or boolean (or one of them with "null");
//  - names are unique ignoring case.
std::variant<std::vector<HeaderParam>, std::string> read_header_params(
    const rapidjson::Value& input_schema);

}  // namespace mcpsh::mcp
