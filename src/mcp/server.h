#pragma once
// The MCP protocol unit: a table of methods over a tool registry and a runner.
//
// Contract:
//  - on_line() takes one incoming line; every request gets exactly one response, sent
//    through `send` (whole lines, one message each); notifications get none.
//  - Tool calls run concurrently up to max_concurrency; further calls wait in FIFO order.
//    A cancelled call (queued or running) is never answered.
//  - Single-threaded: call from the io_context's thread; `send` is called on it too.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "discovery/catalog.h"
#include "execution/call_runner.h"
#include "execution/launch_spec.h"

namespace boost::asio {
class io_context;
}
namespace mcpsh::diagnostics {
class Log;
}

namespace mcpsh::mcp {

struct ServerOptions {
  execution::Limits limits;  // per call; a tool's own timeout replaces limits.timeout
  std::size_t max_concurrency = 16;
  // A call with a progress token that reports nothing for this long gets a heartbeat.
  std::chrono::milliseconds heartbeat{5000};
};

// One line per finished request for the audit log (see AuditLog in cli).
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
  std::uint64_t bytes_out = 0;
  std::chrono::milliseconds duration{0};
};

class Server {
 public:
  using Send = std::function<void(std::string)>;
  using Audit = std::function<void(const AuditRecord&)>;

  // `calls` runs the tool calls (ToolExecutor; a fake in tests) and must outlive the server.
  Server(boost::asio::io_context& io, const discovery::Catalog& catalog,
         execution::CallRunner& calls, ServerOptions options, Send send, diagnostics::Log& log,
         Audit audit = {});
  ~Server();

  void on_line(std::string_view line);
  void on_oversized_line(std::size_t size);

  // Calls running or queued.
  std::size_t in_flight() const;
  // Called whenever in_flight() drops to zero.
  void set_on_idle(std::function<void()> on_idle);
  // Calls waiting for a concurrency slot (not yet started). A transport stops reading
  // while this is at its bound (backpressure) and resumes from on_dequeue.
  std::size_t queued() const;
  // Called whenever a queued call leaves the queue (started, cancelled or dropped).
  void set_on_dequeue(std::function<void()> on_dequeue);
  // Drops queued calls and terminates running ones; nothing more is sent for them.
  void stop_all(std::chrono::milliseconds grace);
  // Enables ready bash processes (serve only; list/call/check run one request). They
  // start at the first tools/list or tools/call.
  void start_warm();
  // No more requests will come (stdin closed): the ready processes are let go.
  void input_closed();

  // Problems found while preparing the catalog (invalid schemas).
  const std::vector<discovery::Problem>& problems() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpsh::mcp
