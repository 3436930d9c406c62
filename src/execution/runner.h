#pragma once
// The interface the protocol unit uses to run things. ProcessRunner is the real one;
// protocol tests use a fake.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "execution/launch_spec.h"
#include "execution/outcome.h"

namespace mcpsh::execution {

using RunId = std::uint64_t;

struct RunCallbacks {
  std::function<void(Outcome)> on_done;              // exactly once
  std::function<void(std::string)> on_channel_line;  // fd 4 lines, without '\n'
  // stderr lines for the diagnostic log, up to limits.max_stderr bytes per run (then one
  // line saying how much more was not passed on); also the runner's own notes about the
  // run, in parentheses (channel lines dropped over limits.max_channel).
  std::function<void(std::string)> on_stderr_line;
};

class Runner {
 public:
  virtual ~Runner() = default;
  // Starts a run; on_done is called later (never from inside start()).
  virtual RunId start(const LaunchSpec& spec, RunCallbacks callbacks) = 0;
  // Terminates a run (SIGTERM to its group, SIGKILL after the grace). Unknown ids: no-op.
  virtual void cancel(RunId id) = 0;
  // Replaces a run's deadline with one `timeout` from now (0 = none). Unknown ids: no-op.
  virtual void set_deadline(RunId id, std::chrono::milliseconds timeout) = 0;
  // Terminates every run with Ending::kShutdown.
  virtual void terminate_all(std::chrono::milliseconds grace) = 0;
};

}  // namespace mcpsh::execution
