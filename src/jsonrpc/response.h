#pragma once
// Serialization of outgoing JSON-RPC messages as compact single lines: no '\n' inside
// (control characters in strings are escaped) and valid UTF-8 whatever the strings,
// ids or spliced results hold (json_write.h, utf8.h). Every line the host sends is made
// here. Each line has room for one more byte, so that appending '\n' does not copy it.
#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>

#include "jsonrpc/message.h"

namespace mcpsh::jsonrpc {

std::string result_line(const RequestId& id, const rapidjson::Value& result);
// Splices an already-serialized result object (compact JSON) without re-parsing it;
// invalid UTF-8 in it is replaced.
std::string result_line_raw(const RequestId& id, std::string_view result_json);
// `id` absent => no "id" member (MCP rejects "id": null).
std::string error_line(const std::optional<RequestId>& id, int code, std::string_view message,
                       const rapidjson::Value* data = nullptr);
std::string notification_line(std::string_view method, const rapidjson::Value& params);

// Compact JSON text of any value.
std::string to_json(const rapidjson::Value& value);

// Indented JSON for people (the list/call verbs); the input must be valid JSON.
std::string pretty_json(std::string_view json);

}  // namespace mcpsh::jsonrpc
