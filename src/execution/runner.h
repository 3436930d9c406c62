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
  std::function<void(std::string)> on_stderr_line;   // for the diagnostic log
};

class Runner {
 public:
  virtual ~Runner() = default;
  // Starts a run; on_done is called later (never from inside start()).
  virtual RunId start(const LaunchSpec& spec, RunCallbacks callbacks) = 0;
  // Terminates a run (SIGTERM to its group, SIGKILL after the grace). Unknown ids: no-op.
  virtual void cancel(RunId id) = 0;
  // Terminates every run with Ending::kShutdown.
  virtual void terminate_all(std::chrono::milliseconds grace) = 0;
  virtual std::size_t running() const = 0;
};

}  // namespace mcpsh::execution
