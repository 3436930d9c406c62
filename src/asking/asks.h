#pragma once
// What a tool asks the client for, as its helpers sent it (mcp_elicit, mcp_confirm,
// mcp_sample, mcp_roots; the execution unit reads their lines), and the inputRequests
// entry each becomes (MCP 2026-07-28, basic/patterns/mrtr). Pure.
#include <rapidjson/document.h>

#include <optional>
#include <string>

namespace mcpsh::asking {

enum class AskKind { kElicit, kConfirm, kSample, kRoots };

struct Ask {
  std::string key;  // the inputRequests key the tool chose
  AskKind kind = AskKind::kElicit;
  std::string message;      // elicit, confirm: the message; sample: the user prompt
  std::string schema_json;  // elicit: the requestedSchema, as the tool wrote it
  std::string system;       // sample: the system prompt ("" = none)
  std::string max_tokens;   // sample: digits as the tool wrote them ("" = the default)
};

// Keys a tool may use and a client's answer may carry: 1 to 64 of [A-Za-z0-9_.:-].
bool valid_key(std::string_view key);
std::optional<AskKind> ask_kind(std::string_view name);  // "elicit", "confirm", ...
const char* ask_kind_name(AskKind kind);
// The client capability an ask needs: "elicitation", "sampling" or "roots".
const char* capability_of(AskKind kind);

// Adds `ask` to the inputRequests object `requests` as {method, params}. On a mistake of
// the tool's (a schema that is not a JSON object of type "object" with "properties", a
// max token count that is not a positive integer) nothing is added and the reason is
// returned, naming the helper and the key.
std::optional<std::string> add_input_request(rapidjson::Value& requests, const Ask& ask,
                                             rapidjson::Document::AllocatorType& allocator);

}  // namespace mcpsh::asking
