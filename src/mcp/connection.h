#pragma once
// A Connection: where a request came from and where its answers go. stdio is one
// connection for the life of the process; an HTTP transport brings one per session (or
// per request). The transport owns its connections and hands them to ProtocolCore.
//
// Contract:
//  - send() takes one whole message line (no '\n'); it is called on the core's thread.
//    A connection whose peer is gone may drop what it is given.
//  - Per-connection protocol state lives here and nowhere else: the legacy era opened by
//    initialize (scoped to the stdio process, or to the HTTP session).
//  - Held by shared_ptr: a call in flight keeps its connection alive until it is answered
//    or dropped, so (connection, request id) identifies a call for cancellation.
#include <memory>
#include <optional>
#include <string>

#include "mcp/request_meta.h"

namespace mcpsh::mcp {

// What initialize negotiated, for the rest of the connection.
struct LegacySession {
  std::string version;
  std::optional<LogLevel> log_level;  // logging/setLevel
  std::string client_name;            // clientInfo.name, for the audit
  std::string list_result;            // the ListToolsResult rendered for `version`
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual void send(std::string line) = 0;

  std::optional<LegacySession> legacy;
};

using ConnectionPtr = std::shared_ptr<Connection>;

}  // namespace mcpsh::mcp
