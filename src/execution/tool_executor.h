#pragma once
// ToolExecutor: runs tool calls, taking bash start-up and script sourcing off the call
// path when it can (ADR 0007).
//
// For each script it keeps up to `warm_per_script` bash processes that have already
// sourced the script and now block reading fd 3, each waiting for exactly one call. A call
// takes one (its deadline starts then), and a replacement is started at once. A process
// serves one call and exits, so calls stay as isolated as with a fresh spawn: each has its
// own process, process group, pipes and limits. When no warm process is ready, or the call
// needs limits other than those the warm ones were started with, the call spawns a fresh
// process running the very same bootstrap.
//
// A script edited on disk (mtime, size or inode changed) retires its warm processes before
// the next call; that call spawns afresh and so sees the new file. A script whose warm
// process dies before being used (e.g. it exits at top level) is not warmed again until it
// changes.
//
// Single-threaded, like the Runner it drives.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "execution/call_runner.h"
#include "execution/runner.h"
#include "execution/tool_launch.h"

namespace mcpsh::execution {

struct ExecutorOptions {
  std::string bash;                 // absolute path
  std::size_t warm_per_script = 2;  // 0 = always spawn afresh
  Limits warm_limits;               // limits warm processes are started with (timeout unused)
  std::function<void(std::string)> on_warning;  // e.g. "script X: warm process died"
};

class ToolExecutor final : public CallRunner {
 public:
  ToolExecutor(Runner& runner, ExecutorOptions options);
  ~ToolExecutor() override;
  ToolExecutor(const ToolExecutor&) = delete;
  ToolExecutor& operator=(const ToolExecutor&) = delete;

  // Starts warm processes for these scripts (no-op when warm_per_script is 0).
  void warm(const std::vector<std::string>& scripts) override;
  // Runs one call (see CallRunner). Returns the id to cancel it with.
  RunId run(const ToolLaunch& launch, CallCallbacks callbacks) override;
  void cancel(RunId id) override;
  void terminate_all(std::chrono::milliseconds grace) override;
  // Lets every warm process exit (their fd 3 is closed; they have no call to run).
  void retire_warm() override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpsh::execution
