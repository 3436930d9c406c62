#pragma once
// What the HTTP transport needs to know, filled in by the command line. Plain data.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mcpsh::http {

struct HttpOptions {
  std::string host = "127.0.0.1";  // the address to bind: a literal or "localhost"
  std::uint16_t port = 3000;       // 0: the kernel picks one (the log says which)
  std::string path = "/mcp";       // the one endpoint
  // Origins allowed to call us ("scheme://host[:port]"): scheme and host are compared, and
  // the port only when the entry names one. A request without an Origin header is not a
  // browser's and is let through.
  std::vector<std::string> allowed_origins{"http://localhost", "http://127.0.0.1"};
  std::optional<std::string> auth_token;  // Authorization: Bearer <token> required when set
  std::size_t max_body = 64u << 20;       // 413 beyond
  std::size_t max_header = 16u << 10;     // 431 beyond
  std::size_t max_connections = 1024;     // 503 beyond
  // Keep-alive: a connection with no request for this long is closed. Also bounds the
  // reading of one request's body and each step of writing a response.
  std::chrono::milliseconds idle_timeout{60000};
  // From the first byte of a request (or from accept) to the end of its header.
  std::chrono::milliseconds header_timeout{10000};
  // Bytes of SSE notifications a client may leave unread before it counts as gone (its
  // call is then cancelled, as if it had closed the connection).
  std::size_t max_buffered = 4u << 20;
  // A listener for operations only (--metrics-listen): /healthz, /readyz and /metrics;
  // anything else is 404, and `path` is not an MCP endpoint there.
  bool probes_only = false;
};

}  // namespace mcpsh::http
