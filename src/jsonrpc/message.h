#pragma once
// One incoming JSON-RPC line, classified. No I/O, no MCP knowledge.
//
// Rules (MCP's profile of JSON-RPC 2.0):
//  - unparseable text                      -> kError -32700, no id
//  - an array (batch) or a non-object      -> kError -32600, no id
//  - "id" present but null / not string or integer -> kError -32600, no id
//  - a valid id with a bad envelope ("jsonrpc" != "2.0", "method" not a string,
//    "params" not an object)              -> kError with that id
//  - no id and a method                    -> kNotification (never answered, even if
//    its envelope is bad: kIgnored then)
//  - a response (result/error, no method)  -> kIgnored: the host sends no requests
//  - nested deeper than 256 arrays/objects -> kError -32600 with the id, if valid (the
//    DOM and its users recurse per level; a deep line must not overflow the stack)
#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::jsonrpc {

// A request id, kept as its compact JSON text ("7", "\"abc\"") so that it is echoed
// byte for byte and can be used as a map key.
struct RequestId {
  std::string json;
  bool operator<(const RequestId& o) const { return json < o.json; }
  bool operator==(const RequestId& o) const { return json == o.json; }
};

struct Message {
  enum class Kind { kRequest, kNotification, kError, kIgnored };
  Kind kind = Kind::kIgnored;
  std::optional<RequestId> id;
  std::string method;
  // The whole parsed line; `params` points into it (nullptr when absent).
  std::shared_ptr<rapidjson::Document> document;
  const rapidjson::Value* params = nullptr;
  // kError: what to answer. kIgnored: why (for the log).
  int error_code = 0;
  std::string error_message;
};

Message parse_message(std::string_view line);

// Converts a JSON id value (string or integer) to a RequestId; nullopt if invalid.
std::optional<RequestId> to_request_id(const rapidjson::Value& id);

// JSON nested deeper than this is refused: RapidJSON's DOM users (Writer, the schema
// validator) recurse once per level, so a deep value would overflow the stack.
inline constexpr std::size_t kMaxNesting = 256;
// Deepest nesting of arrays and objects in JSON text (brackets inside strings skipped).
std::size_t nesting_depth(std::string_view json);

}  // namespace mcpsh::jsonrpc
