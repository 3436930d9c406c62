#pragma once
// Test harness for the HTTP transport: the real binary serving on 127.0.0.1 (port 0: the
// kernel picks; the port is read from the "listening on" log line), and a blocking HTTP/1.1
// client on a real socket that writes exactly the bytes a test gives it and parses what
// comes back with Boost.Beast.
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host_process.h"

namespace mcpsh::testing::http {

using namespace std::chrono_literals;

// `mcp-shell-host --http --listen 127.0.0.1:0 <args>`; waits for the listening line.
class HttpHost {
 public:
  explicit HttpHost(const std::vector<std::string>& args, HostOptions options = {});
  int port() const { return port_; }
  std::string url_path() const { return path_; }  // "/mcp"
  HostProcess& process() { return *process_; }

 private:
  std::unique_ptr<HostProcess> process_;
  int port_ = -1;
  std::string path_;
};

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
  bool has(const std::string& lower_name) const { return headers.count(lower_name) > 0; }
};

// The "data:" payloads of an SSE body, in order.
std::vector<std::string> sse_data(const std::string& body);

class Client {
 public:
  // Connects (fails the test if it cannot); a receive buffer size > 0 is set first.
  explicit Client(int port, int receive_buffer = 0);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  bool send(const std::string& bytes);
  // The next whole response, or nullopt on timeout, EOF or a parse error.
  std::optional<Response> read_response(std::chrono::milliseconds timeout = 20s);
  // Raw bytes until `needle` has arrived (true) or the timeout/EOF (false). They stay
  // buffered for read_response.
  bool wait_for(const std::string& needle, std::chrono::milliseconds timeout = 20s);
  // True once the server has closed the connection (EOF or reset) within the timeout;
  // bytes that arrive meanwhile are kept.
  bool closed_by_server(std::chrono::milliseconds timeout = 20s);
  void close();
  // Ends our sending side (a half-close): the server reads EOF, we can still read.
  void shutdown_send();
  const std::string& received() const { return buffer_; }

 private:
  // Reads once (up to the deadline); false on timeout, EOF or error.
  bool read_some(std::chrono::steady_clock::time_point deadline);
  int fd_ = -1;
  bool eof_ = false;
  std::string buffer_;
};

using Headers = std::vector<std::pair<std::string, std::string>>;

// A POST with Host, Content-Type: application/json, Accept (JSON and SSE),
// Content-Length and, as a conforming client sends them, the request metadata headers
// mirrored from the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name); `headers` replace
// those of the same name (an empty value drops one).
std::string post(const std::string& path, const std::string& body, const Headers& headers = {});
// A request with any method and no body.
std::string bare(const std::string& method, const std::string& path, const Headers& headers = {});

// One request on a fresh connection.
std::optional<Response> exchange(int port, const std::string& request_bytes);

}  // namespace mcpsh::testing::http
