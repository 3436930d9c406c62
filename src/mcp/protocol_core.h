#pragma once
// The transport-independent protocol core: takes one message from a connection and
// answers on that connection. Owns the method handlers, the call scheduler and the
// answer path; holds no transport and no per-connection state (that is Connection's).
//
// Contract:
//  - handle() takes one line; every request gets exactly one response on the connection
//    it came from (now, or when its call ends), unless its call is cancelled or the host
//    stops; notifications and responses get none.
//  - Every request that is answered, cancelled or dropped passes through one answer path,
//    which reports it to the Audit observer once.
//  - Single-threaded: everything on one thread (the io_context's, for the real host).
//  - `runner`, `time` and `log` must outlive the core.
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "execution/call_runner.h"
#include "execution/launch_spec.h"
#include "jsonrpc/message.h"
#include "mcp/audit_record.h"
#include "mcp/call_notifier.h"
#include "mcp/call_scheduler.h"
#include "mcp/connection.h"
#include "mcp/mirrored_headers.h"
#include "mcp/server_profile.h"
#include "mcp/tool_registry.h"
#include "mcp/wakeups.h"

namespace mcpsh::diagnostics {
class Log;
}

namespace mcpsh::mcp {

struct CoreOptions {
  execution::Limits limits;  // per call; a tool's own timeout replaces limits.timeout
  std::size_t max_concurrency = 16;
  // A call with a progress token that reports nothing for this long gets a heartbeat.
  std::chrono::milliseconds heartbeat{5000};
};

// What handle() did with a line, for transports that answer every message (HTTP: 202 for
// a notification, a response body for a request).
enum class Handled {
  kAnswered,    // a request, answered before handle() returned
  kPending,     // a request whose call runs: answered later, or never if it is cancelled
  kNoResponse,  // a notification, a response or an ignored message: nothing will be sent
};

class ProtocolCore {
 public:
  using Audit = std::function<void(const AuditRecord&)>;

  ProtocolCore(const discovery::Catalog& catalog, execution::CallRunner& runner,
               CoreOptions options, WakeupSource& time, diagnostics::Log& log, Audit audit = {});

  // Takes the line: it becomes the parsed document's buffer (no copy of the payload).
  Handled handle(const ConnectionPtr& from, std::string line);
  // A line longer than the transport accepts: refused without an id.
  void oversized(const ConnectionPtr& from, std::size_t size);
  // The transport will bring nothing more from this connection and can deliver nothing
  // to it (an HTTP session ended): its calls are cancelled, as if the client had asked.
  void disconnected(const ConnectionPtr& connection) {
    scheduler_.cancel_connection(connection.get());
  }

  CallScheduler& calls() { return scheduler_; }
  const CallScheduler& calls() const { return scheduler_; }
  // Pre-started processes for the catalog's scripts, asked for at the first tools/list or
  // tools/call (start-up stays fast: clients such as the TypeScript SDK start a server
  // just to probe it).
  void enable_warm() { warm_wanted_ = true; }
  // No more requests will come: pre-started processes are let go.
  void input_closed() { runner_.retire_warm(); }
  // Problems found while preparing the catalog (invalid schemas).
  const std::vector<discovery::Problem>& problems() const { return problems_; }

 private:
  struct Request;
  void on_notification(const ConnectionPtr& from, const jsonrpc::Message& m);
  void dispatch(Request& r);
  void handle_initialize(Request& r);
  void handle_set_level(Request& r);
  void handle_tools_call(Request& r);
  void warm_once();

  // The answer path: every answered or dropped request passes here once.
  void answer(Connection& to, const Exchange& x, std::string line, AuditRecord facts);
  // A line refused before its method was known (parse errors, bad envelopes).
  void refuse_unparsed(Connection& to, const jsonrpc::Message& m, Clock::time_point received);
  void refuse(Connection& to, const Exchange& x, int code, const std::string& message,
              const rapidjson::Value* data = nullptr);
  void unanswered(const Exchange& x, AuditRecord facts);
  // A request whose mirrored HTTP headers disagree with it (mirrored_headers.h).
  void refuse_headers(Connection& to, Exchange& x, const HeaderRefusal& no);
  static LegacySession stateless_session(const std::string& version);
  // The ListToolsResult of a legacy revision, rendered at its first use.
  const std::string& legacy_list_result(const std::string& version);
  void finished(Call& call, execution::Outcome outcome);

  execution::CallRunner& runner_;
  CoreOptions options_;
  WakeupSource& time_;
  diagnostics::Log& log_;
  Audit audit_;
  std::vector<discovery::Problem> problems_;
  ToolRegistry registry_;
  ServerProfileView profile_;
  std::string discover_result_, list_result_;
  std::map<std::string, std::string, std::less<>> legacy_lists_;
  CallNotifier notifier_;
  bool warm_wanted_ = false, warmed_ = false;
  CallScheduler scheduler_;  // last: its hooks use the members above
};

}  // namespace mcpsh::mcp
