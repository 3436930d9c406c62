#pragma once
// ToolExecutor: runs tool calls, taking bash start-up and script sourcing off the call
// path when it can (ADR 0007).
//
// Each bootstrap process (tool_launch.h) gets, when it is spawned, its own pipe on fd 3
// and its own in-memory file on fd 5. A call is handed to a process by writing the
// arguments into its fd 5 file (the host's copy is closed at once) and then the tool name
// to fd 3; so a tool never opens another process's descriptor to get its arguments, and
// no descriptor of the host holds a call's arguments while it runs.
//
// Warm processes: a script that has been called (or every script, when they all fit under
// the cap below, once warm() is hinted) keeps up to `warm_per_script` processes that have
// already sourced it and block reading fd 3, each waiting for exactly one call. A call
// takes one (its deadline starts then). A process serves one call and exits, so calls stay
// as isolated as with a fresh spawn: each has its own process, process group, pipes and
// limits. When no warm process is ready, or the call needs limits other than those the
// warm ones were started with, the call spawns a fresh process running the same bootstrap.
// Processes are kept per script and confinement (environment and sandbox are fixed when a
// process starts): a tool with a sandbox of its own has processes of its own.
//  - Spawning ahead is incremental: one process per turn of the event loop, posted, so that
//    requests interleave with it; a used process is replaced only after its call ended
//    (its response is written first).
//  - At most `max_idle_warm` processes wait at any time, over all scripts (default:
//    2 * warm_per_script, at least 8 and at most 64). Scripts are warmed in the order they
//    are first called; once the cap is reached other scripts spawn per call.
//
// A script edited on disk (mtime, size or inode changed) retires its warm processes before
// the next call; that call spawns afresh and so sees the new file. A script whose warm
// process dies before being used (e.g. it exits at top level) is not warmed again until it
// changes.
//
// Failures: every call ends through its on_done exactly once, posted, never from inside
// run(). A call that cannot be started (no descriptor or memory for its pipe or file, the
// arguments cannot be written, bash cannot be handed the call) ends with
// Ending::kFailedToStart and a start_error naming the failed step; the process spawned
// for it, if any, is let go. run() returns 0 for a call that never got a process.
//
// Lifetime: callbacks of processes that end after the executor is destroyed do nothing
// (the executor's state is shared with them through a weak reference only); destroying
// the executor lets its warm processes go (their fd 3 is closed).
//
// Single-threaded, like the Runner it drives: everything on the io_context's thread.
// SIGPIPE must be ignored (the host does): a process that died before its call is
// noticed by a write to its fd 3 failing with EPIPE.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "execution/call_runner.h"
#include "execution/runner.h"
#include "execution/tool_launch.h"

namespace boost::asio {
class io_context;
}

namespace mcpsh::execution {

struct ExecutorOptions {
  std::string bash;                 // absolute path
  std::size_t warm_per_script = 2;  // 0 = always spawn afresh
  std::size_t max_idle_warm = 0;    // over all scripts; 0 = clamp(2 * warm_per_script, 8, 64)
  Limits warm_limits;               // limits warm processes are started with (timeout unused)
  std::function<void(std::string)> on_warning;  // e.g. "script X: warm process died"
};

class ToolExecutor final : public CallRunner {
 public:
  // `io` and `runner` must outlive the executor.
  ToolExecutor(boost::asio::io_context& io, Runner& runner, ExecutorOptions options);
  ~ToolExecutor() override;
  ToolExecutor(const ToolExecutor&) = delete;
  ToolExecutor& operator=(const ToolExecutor&) = delete;

  // Hint: calls to these scripts are coming. Warms them all if they fit under the cap
  // (no-op when warm_per_script is 0); otherwise scripts are warmed once called.
  void warm(const std::vector<WarmTarget>& targets) override;
  // Runs one call (see CallRunner). Returns the id to cancel it with (0: nothing to cancel).
  RunId run(const ToolLaunch& launch, CallCallbacks callbacks) override;
  void cancel(RunId id) override;
  bool reply(RunId id, std::string_view line) override;
  void terminate_all(std::chrono::milliseconds grace) override;
  // Lets every warm process exit (their fd 3 is closed; they have no call to run) and
  // starts no more.
  void retire_warm() override;

  // Idle warm processes right now (for tests and the diagnostic log).
  std::size_t idle_warm() const;
  // Runs so far that found a warm bash ready (hits), and runs that started their own
  // (misses: cold, or warm processes off, or limits a warm one was not started with).
  struct WarmCounts {
    std::uint64_t hits = 0, misses = 0;
  };
  WarmCounts warm_counts() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mcpsh::execution
