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
//  - a response (result/error, no method)  -> kResponse with its id and document (the
//    host's own requests to the client, e.g. elicitation/create, are answered so);
//    without an id, or nested too deeply, kIgnored
//  - nested deeper than 256 arrays/objects -> kError -32600 with the id, if its top-level
//    id can be read (the DOM and its users recurse per level). The depth is known before
//    anything is built: the work and memory a line costs stay proportional to its size.
//  - a NUL byte anywhere                   -> kError -32700, no id (never "the rest of
//    the line is ignored")
//  - lone surrogate escapes ("\udc00")     -> read as U+FFFD, like any JSON the host reads
//    (json_read.h)
#include <rapidjson/document.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "jsonrpc/json_read.h"

namespace mcpsh::jsonrpc {

// A request id, kept as its compact JSON text ("7", "\"abc\"") so that it is echoed
// byte for byte and can be used as a map key.
struct RequestId {
  std::string json;
  bool operator<(const RequestId& o) const { return json < o.json; }
  bool operator==(const RequestId& o) const { return json == o.json; }
};

struct Message {
  enum class Kind { kRequest, kNotification, kResponse, kError, kIgnored };
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

// Copies the line once when it is parsed (the document's strings point into the copy).
Message parse_message(std::string_view line);
// Takes the line: the document's strings point into it, no copy is made.
Message parse_owned_message(std::string line);

// Converts a JSON id value (string or integer) to a RequestId; nullopt if invalid.
std::optional<RequestId> to_request_id(const rapidjson::Value& id);

}  // namespace mcpsh::jsonrpc
