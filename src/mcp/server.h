#pragma once
// The MCP server on stdio: one Connection (the process's stdin/stdout) over the
// transport-independent ProtocolCore, with heartbeats timed by the io_context.
//
// Contract:
//  - on_line() takes one incoming line; every request gets exactly one response, sent
//    through `send` (whole lines, one message each); notifications get none.
//  - Tool calls run concurrently up to max_concurrency; further calls wait in FIFO order.
//    A cancelled call (queued or running) is never answered.
//  - Single-threaded: call from the io_context's thread; `send` is called on it too.
//  - `calls`, `log` and the io_context must outlive the server; callbacks the runner
//    still holds when the server is destroyed do nothing.
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "discovery/catalog.h"
#include "execution/call_runner.h"
#include "mcp/audit_record.h"
#include "mcp/protocol_core.h"

namespace boost::asio {
class io_context;
}

namespace mcpsh::mcp {

using ServerOptions = CoreOptions;

class Server {
 public:
  using Send = std::function<void(std::string)>;
  using Audit = std::function<void(const AuditRecord&)>;

  // `calls` runs the tool calls (ToolExecutor; a fake in tests) and must outlive the server.
  Server(boost::asio::io_context& io, const discovery::Catalog& catalog,
         execution::CallRunner& calls, ServerOptions options, Send send, diagnostics::Log& log,
         Audit audit = {});
  ~Server();

  // Takes the line: the parsed document is built in place from it (no copy of a large
  // payload).
  void on_line(std::string line);
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

  // The host is stopping: open subscriptions/listen streams get their closing results.
  void end_subscriptions();
  ProtocolCore& core();

  // Problems found while preparing the catalog (invalid schemas).
  const std::vector<discovery::Problem>& problems() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpsh::mcp
