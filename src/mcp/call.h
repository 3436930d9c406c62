#pragma once
// One run of a script function from acceptance to its answer — a tool call, or the
// function behind a resources/read, prompts/get or completion/complete: what runs, for
// whom, and what it has reported so far. Owned by shared_ptr: the scheduler and the
// runner's callbacks share it.
#include <memory>
#include <optional>

#include "asking/asks.h"
#include "asking/round_state.h"
#include "execution/runner.h"
#include "execution/tool_launch.h"
#include "jsonrpc/message.h"
#include "mcp/connection.h"
#include "mcp/exchange.h"
#include "mcp/offering.h"
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

// Which method a Call answers; its answer is shaped accordingly.
enum class CallKind { kTool, kResource, kPrompt, kCompletion };

struct Call : std::enable_shared_from_this<Call> {
  ConnectionPtr connection;
  Exchange exchange;  // exchange.id is set
  CallKind kind = CallKind::kTool;
  // What was served when the call was accepted: it finishes on that, after a reload too.
  std::shared_ptr<const Offering> offering;
  const RegisteredTool* tool = nullptr;  // kTool, in offering
  std::string uri, mime;                 // kResource: the URI read, the declared type
  std::string description;               // kPrompt: the prompt's description
  execution::ToolLaunch launch;
  ProgressState progress;
  std::optional<execution::RunId> run;  // set once started
  bool cancelled = false;               // never answered from then on
  ToolContent content;                  // blocks sent on the side channel, in order
  // Asking (MCP 2026-07-28 input requests): the request this run answers and the answers
  // it runs with; the questions it asked that have no answer yet, in order, one per key;
  // a mistake in one of them (the tool's: a bad schema), which fails the call instead.
  asking::RoundBinding round;
  asking::Answers answers;
  std::vector<asking::Ask> asks;
  std::string ask_mistake;
  std::string confirm;  // @confirm's message, filled in: asked before the tool runs
  // The tasks extension (task_methods.cc). While the call may still become a task: what a
  // run of it again needs (its launch as planned, before the scheduler let go of the
  // arguments) and when it becomes one if it has not finished or asked by then (the
  // scheduler calls hooks.due). Once it is a task: the task's id.
  std::shared_ptr<const execution::ToolLaunch> task_seed;
  std::optional<Clock::time_point> due;
  std::string task_id;

  CallKey key() const { return {connection.get(), *exchange.id}; }
  // Who runs, for logs: the tool's name, or the function (resource_x, prompt_x, ...).
  const std::string& label() const {
    return kind == CallKind::kTool ? exchange.tool : launch.function;
  }
};

}  // namespace mcpsh::mcp
