#pragma once
// One tool call from acceptance to its answer: what runs, for whom, and what it has
// reported so far. Owned by shared_ptr: the scheduler and the runner's callbacks share it.
#include <memory>
#include <optional>

#include "execution/runner.h"
#include "execution/tool_launch.h"
#include "jsonrpc/message.h"
#include "mcp/connection.h"
#include "mcp/exchange.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_result.h"

namespace mcpsh::mcp {

// A call is known by the connection it came on and its request id: two connections may
// use the same id at once.
struct CallKey {
  const Connection* connection;
  jsonrpc::RequestId id;
  bool operator<(const CallKey& o) const {
    return connection != o.connection ? std::less<>()(connection, o.connection) : id < o.id;
  }
};

// What the client has been told of a call's progress (notifications/progress must
// increase; a heartbeat is due when nothing was reported for a while).
struct ProgressState {
  double last = 0;
  bool sent = false;
  std::optional<double> total;
  Clock::time_point last_report;
};

struct Call {
  ConnectionPtr connection;
  Exchange exchange;  // exchange.id is set
  const RegisteredTool* tool = nullptr;
  execution::ToolLaunch launch;
  ProgressState progress;
  std::optional<execution::RunId> run;  // set once started
  bool cancelled = false;               // never answered from then on
  ToolContent content;                  // blocks sent on the side channel, in order

  CallKey key() const { return {connection.get(), *exchange.id}; }
};

}  // namespace mcpsh::mcp
