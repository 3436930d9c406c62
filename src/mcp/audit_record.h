#pragma once
// One line per finished request for the audit log: what an exchange was and how it ended.
// Built in one place (ProtocolCore's answer path), never by the method handlers.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcpsh::mcp {

struct AuditRecord {
  std::string id_json;  // "" for lines without a usable id
  std::string method;
  std::string tool;
  std::string protocol_version;
  std::string client_name;
  std::optional<int> error_code;  // a JSON-RPC error was sent
  std::string error_message;
  std::optional<bool> is_error;  // a CallToolResult was sent
  std::string outcome;           // ok, exit, signal, timeout, cancelled, ...
  std::optional<int> exit_status;
  std::optional<int> signal;
  bool timed_out = false;  // each also in `outcome`, but separate for queries
  bool cancelled = false;
  bool truncated = false;  // stdout exceeded --max-output
  std::vector<std::string> argument_names;
  std::uint64_t stdout_bytes = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
  std::chrono::milliseconds duration{0};
  std::string sandbox;  // the sandbox the function ran under ("read-only,no-network"); "" none
  std::string remote;   // the peer over HTTP; empty on stdio
  int http_status = 0;  // the HTTP status sent; 0 on stdio or when nothing was sent
};

}  // namespace mcpsh::mcp
