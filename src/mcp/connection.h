#pragma once
// A Connection: where a request came from and where its answers go. stdio is one
// connection for the life of the process; the HTTP transport brings one per POST.
// The transport owns its connections and hands them to ProtocolCore.
//
// Contract:
//  - send() takes one whole message line (no '\n') and says what it is: a notification
//    about the request in progress, or the response that ends it (HTTP answers a request
//    with that response, after a stream of its notifications). Called on the core's
//    thread. A connection whose peer is gone may drop what it is given.
//  - Per-connection protocol state lives here and nowhere else: the legacy era opened by
//    initialize (scoped to the stdio process; synthesized per request over stateless
//    HTTP), and the request metadata an HTTP transport mirrored into headers.
//  - Held by shared_ptr: a call in flight keeps its connection alive until it is answered
//    or dropped, so (connection, request id) identifies a call for cancellation.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mcp/request_meta.h"

namespace mcpsh::mcp {

// What initialize negotiated, for the rest of the connection.
struct LegacySession {
  std::string version;
  std::optional<LogLevel> log_level;  // logging/setLevel
  std::string client_name;            // clientInfo.name, for the audit
  // What initialize said the client can answer, as RequestMeta::client_capabilities.
  std::string client_capabilities;
  // Negotiated by initialize on this connection (not synthesized for a stateless HTTP
  // request): over HTTP the transport then opens a session for it (Mcp-Session-Id).
  bool from_initialize = false;
};

// What a line given to Connection::send is.
struct Outgoing {
  // kRequest: the host's own request to the client (elicitation/create and the like).
  enum class Kind { kNotification, kResponse, kRequest };
  Kind kind = Kind::kResponse;
  std::optional<int> error_code;  // a JSON-RPC error response: its code
};

// Request metadata an HTTP transport read from the request's headers (MCP 2026-07-28,
// "Request Metadata"), as received: values are raw header values (a base64 sentinel
// `=?base64?…?=` is still encoded). Absent headers are nullopt. The core checks them
// against the body before dispatch (-32020 HeaderMismatch) and takes the era of a request
// without modern `_meta` from protocol_version (stateless legacy HTTP).
struct MirroredHeaders {
  std::optional<std::string> protocol_version;  // MCP-Protocol-Version
  std::optional<std::string> method;            // Mcp-Method
  std::optional<std::string> name;              // Mcp-Name
  // Every Mcp-Param-{Name} header: {Name} as sent (header names are case-insensitive:
  // compare with that in mind), value raw.
  std::vector<std::pair<std::string, std::string>> params;
};

class Connection {
 public:
  virtual ~Connection() = default;
  virtual void send(std::string line, const Outgoing& what) = 0;
  // For the audit: the transport's status for the response last sent (the HTTP status
  // code), 0 where the transport has none (stdio).
  virtual int last_status() const { return 0; }

  std::optional<LegacySession> legacy;
  // Set by the HTTP transport on every request it hands to the core; never on stdio.
  std::optional<MirroredHeaders> mirrored;
  // The peer, for the audit ("127.0.0.1:53422"); empty on stdio.
  std::string remote;
  // The HTTP session (Mcp-Session-Id) the request came in, empty without one: the host's
  // questions are answered by the session they were asked in, on any of its connections.
  std::string session_id;
  // False when the host's own messages cannot reach the peer while its request runs (an
  // HTTP client that takes JSON only hears nothing but the response).
  bool hears_requests = true;
};

using ConnectionPtr = std::shared_ptr<Connection>;

}  // namespace mcpsh::mcp
