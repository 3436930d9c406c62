#pragma once
// CallRunner: what the protocol unit needs to run tool calls. ToolExecutor is the real
// one (bash processes through a Runner); protocol and scheduler tests use a fake.
//
// Contract:
//  - run() never calls back from inside itself; on_done is called exactly once, later, on
//    the io_context's thread, also when the call could not start (Ending::kFailedToStart
//    with a reason the model can read).
//  - on_event and on_stderr_line are only called before on_done.
//  - run() returns the id to cancel the call with; 0 when no process was started for it
//    (its on_done is posted already). cancel() of 0, an unknown or a finished id is a
//    no-op. A cancelled call still gets its on_done (Ending::kCancelled) once its
//    processes are gone.
//  - run() reads `launch` only while it runs: the caller may release it afterwards.
//  - Single-threaded: everything on the io_context's thread.
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "execution/channel_events.h"
#include "execution/outcome.h"
#include "execution/runner.h"
#include "execution/tool_launch.h"

namespace mcpsh::execution {

struct CallCallbacks {
  std::function<void(Outcome)> on_done;             // exactly once
  std::function<void(ChannelEvent)> on_event;       // side-channel events (fd 4)
  std::function<void(std::string)> on_stderr_line;  // for the diagnostic log
};

// A script to keep processes ready for, confined as its calls will be.
struct WarmTarget {
  WarmTarget(std::string s, Confinement c = {}) : script(std::move(s)), confinement(std::move(c)) {}
  std::string script;
  Confinement confinement;
  bool operator==(const WarmTarget&) const = default;
};

class CallRunner {
 public:
  virtual ~CallRunner() = default;
  virtual RunId run(const ToolLaunch& launch, CallCallbacks callbacks) = 0;
  // SIGTERM to the call's process group, SIGKILL after its grace.
  virtual void cancel(RunId id) = 0;
  // Ends every call (Ending::kShutdown) and lets every pre-started process go.
  virtual void terminate_all(std::chrono::milliseconds grace) = 0;
  // Writes one answer line to a running call started with ToolLaunch::replies (the tool
  // waits for it on its reply descriptor). False when the call is gone, was not started
  // so, or the line does not fit the pipe now (the caller then ends the call).
  virtual bool reply(RunId id, std::string_view line) {
    (void)id;
    (void)line;
    return false;
  }
  // Hints: calls to these scripts are coming (start processes ahead, if it does that).
  virtual void warm(const std::vector<WarmTarget>& targets) = 0;
  // No more calls will come: let pre-started processes go.
  virtual void retire_warm() = 0;
};

}  // namespace mcpsh::execution
