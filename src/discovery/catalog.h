#pragma once
// The result of discovery: which tools exist, where they live, what they advertise.
// Immutable once built; the protocol unit renders it. JSON travels as compact text so
// that this header carries no JSON library.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcpsh::discovery {

struct ToolEntry {
  std::string name;             // MCP tool name; tool_<name> is the function
  std::string script;           // absolute path of the script to source for a call
  std::string definition_json;  // the MCP Tool object as advertised (compact JSON)
  // False when a tools file advertises the tool but no script defines tool_<name>: it is
  // listed (the file is the list) but calling it is an invalid-params error.
  bool implemented = true;
  std::optional<std::chrono::milliseconds> timeout;  // from the comment tag @timeout
};

// Server-level metadata from an old-core config file (a server/discover body).
struct ServerProfile {
  std::string source;                       // the file it came from
  std::optional<std::string> server_info;   // JSON object
  std::optional<std::string> capabilities;  // JSON object
  std::optional<std::string> instructions;  // plain text
  std::optional<std::int64_t> ttl_ms;
  std::optional<std::string> cache_scope;
};

struct Problem {
  enum class Severity { kError, kWarning };
  Severity severity;
  std::string where;  // a script, file:line or tool name
  std::string what;
};

struct Catalog {
  std::vector<ToolEntry> tools;  // in list order
  std::optional<ServerProfile> profile;
  std::vector<Problem> problems;
  // Set when the host must not start (e.g. two scripts define the same tool).
  bool fatal = false;
};

}  // namespace mcpsh::discovery
