#pragma once
// The call scheduler: runs accepted tool calls through a CallRunner, at most
// max_concurrency at once, the rest in a FIFO queue; cancels by (connection, request id);
// says when a call needs a heartbeat. It knows nothing of JSON or of the wire: what a
// finished, dropped or reporting call means to the client is the hooks' business.
//
// Contract:
//  - Single-threaded (the core's thread). Hooks are never called from inside submit(),
//    cancel() or stop_all() except `dropped` for calls that never started.
//  - Every submitted call ends exactly once: `finished` (answer it) or `dropped` (it was
//    cancelled or the host is stopping: it gets no answer).
//  - The runner's callbacks hold only a weak reference to the scheduler: a call that
//    ends after the scheduler is destroyed is ignored.
#include <chrono>
#include <functional>
#include <memory>

#include "execution/call_runner.h"
#include "mcp/call.h"
#include "mcp/wakeups.h"

namespace mcpsh::mcp {

struct SchedulerHooks {
  std::function<void(Call&, execution::Outcome)> finished;
  std::function<void(Call&, const char* why)> dropped;               // "cancelled" or "shutdown"
  std::function<void(Call&, const execution::ChannelEvent&)> event;  // live calls only
  std::function<void(Call&, std::string)> stderr_line;
  std::function<void(Call&)> heartbeat;  // a call with a progress token reported nothing
  std::function<void(Call&)> due;        // the call's `due` moment came (it is then cleared)
};

class CallScheduler {
 public:
  // `runner` and `time` must outlive the scheduler. heartbeat <= 0 disables heartbeats.
  CallScheduler(execution::CallRunner& runner, std::size_t max_concurrency,
                std::chrono::milliseconds heartbeat, WakeupSource& time, SchedulerHooks hooks);
  ~CallScheduler();
  CallScheduler(const CallScheduler&) = delete;
  CallScheduler& operator=(const CallScheduler&) = delete;

  // A call with this key is queued or running.
  bool busy(const CallKey& key) const;
  // Queues the call (its key must not be busy) and starts what the limit allows.
  void submit(std::shared_ptr<Call> call);
  // Unknown or finished keys are ignored. A queued call is dropped at once; a running one
  // is cancelled through the runner and dropped when its processes are gone.
  void cancel(const CallKey& key);
  // Moves a queued or running call to another connection (a call that becomes a task):
  // from then on it is known, and cancelled, by (to, its id). Unknown keys are ignored.
  void rehome(const CallKey& key, ConnectionPtr to);
  // Arms the wake for calls whose `due` moment was set or moved after they were submitted.
  void rearm();
  // Cancels every call of one connection (its peer is gone: nobody is left to answer).
  void cancel_connection(const Connection* connection);
  // Drops queued calls, terminates running ones; none of them is answered.
  void stop_all(std::chrono::milliseconds grace);

  std::size_t in_flight() const;  // queued or running
  std::size_t queued() const;
  void set_on_idle(std::function<void()> f);     // in_flight() dropped to zero
  void set_on_dequeue(std::function<void()> f);  // a call left the queue

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace mcpsh::mcp
