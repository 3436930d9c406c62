#pragma once
// The per-request `_meta` rules of MCP 2026-07-28, checked in one place before dispatch.
#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <variant>

namespace mcpsh::mcp {

enum class LogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };
std::optional<LogLevel> parse_log_level(std::string_view name);
const char* log_level_name(LogLevel level);

struct RequestMeta {
  std::string protocol_version;
  bool legacy = false;                // served under a version negotiated by initialize
  std::string client_name;            // from clientInfo, "" if absent
  std::optional<LogLevel> log_level;  // notifications/message only when set
  std::optional<std::string> progress_token_json;  // compact JSON (string or integer)
  // What a modern client declared it can answer, of elicitation, sampling and roots, as
  // a comma-separated list in that order ("" = none; legacy requests: always "").
  std::string client_capabilities;
  // The client declared the tasks extension (clientCapabilities.extensions
  // ["io.modelcontextprotocol/tasks"], an object): a tools/call may be answered with a task.
  bool tasks = false;
};

// The extension key of tasks (io.modelcontextprotocol/tasks).
inline constexpr const char* kTasksExtension = "io.modelcontextprotocol/tasks";

struct MetaError {
  int code;
  std::string message;
  std::optional<std::string> requested;  // for -32022: data.requested
};

// What a client's capabilities object declares it can answer, of elicitation (form mode:
// an empty object or one naming "form"), sampling and roots (objects), as
// RequestMeta::client_capabilities.
std::string answerable_capabilities(const rapidjson::Value& capabilities);

// Whether params._meta names io.modelcontextprotocol/protocolVersion: the request is then
// a modern one, whatever else its _meta holds.
bool has_modern_meta(const rapidjson::Value* params);
// params._meta["io.modelcontextprotocol/protocolVersion"] as sent (any JSON type), or nullptr.
const rapidjson::Value* modern_meta_version(const rapidjson::Value* params);

// Reads params._meta of a modern request. A version this host does not serve is
// -32022 for every method, server/discover included. Returns the meta or the error to send.
std::variant<RequestMeta, MetaError> read_request_meta(const rapidjson::Value* params);

}  // namespace mcpsh::mcp
