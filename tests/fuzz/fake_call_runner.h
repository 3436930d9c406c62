#pragma once
// A CallRunner that starts no process: each call is scripted by its own arguments, so a
// fuzzer that writes requests also decides what the "tool" does.
//
// Arguments it reads (all optional; anything else is ignored):
//   "stdout": string   the tool's output (default: the arguments' JSON text)
//   "exit": integer    exit status (default 0)
//   "ending": string   "signal", "timeout", "failed", "cancelled" or "shutdown"
//   "stderr": string   one line for the diagnostic log
//   "channel": [string, ...]  side-channel lines (fd 4), parsed as the executor does
//   "hold": true       the call runs until cancelled or terminated
// In "stdout", "stderr" and "channel" strings the text \xHH ("\\xHH" in JSON) is the raw byte HH (a
// tool writes bytes; a client's JSON cannot carry invalid UTF-8). A call that is not held ends on
// the next turn of the io_context, after its events.
//
// Contract: the CallRunner contract (call_runner.h): on_done exactly once per run, always
// posted (never from inside run()), events only before it. Single-threaded.
#include <boost/asio/io_context.hpp>
#include <map>

#include "execution/call_runner.h"

namespace mcpsh::fuzz {

class FakeCallRunner : public execution::CallRunner {
 public:
  explicit FakeCallRunner(boost::asio::io_context& io) : io_(io) {}

  execution::RunId run(const execution::ToolLaunch& launch,
                       execution::CallCallbacks callbacks) override;
  void cancel(execution::RunId id) override;
  void terminate_all(std::chrono::milliseconds grace) override;
  void warm(const std::vector<execution::WarmTarget>& targets) override;
  void retire_warm() override;

  // Runs started and not yet ended (on_done not yet called).
  std::size_t unfinished() const { return runs_.size(); }

 private:
  struct Run {
    execution::CallCallbacks callbacks;
    bool held = false;
    bool ending = false;  // on_done is posted
  };
  // Posts the run's on_done with `outcome`; later calls for the same run are ignored.
  void finish(execution::RunId id, execution::Outcome outcome);

  boost::asio::io_context& io_;
  std::map<execution::RunId, Run> runs_;
  execution::RunId next_ = 1;
};

}  // namespace mcpsh::fuzz
