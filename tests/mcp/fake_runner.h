#pragma once
// A CallRunner that starts nothing: it records each launch and lets the test decide when
// and how each call ends and what it reports on its side channel. No processes, no I/O.
//
// Honours the CallRunner contract the way the tests need it: run() never calls back from
// inside itself; cancel() only records (the test ends the call, as the real runner does
// once the process group is gone); every callback comes from the test's own thread.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "execution/call_runner.h"

namespace mcpsh::testing {

class FakeRunner : public execution::CallRunner {
 public:
  struct Run {
    execution::RunId id = 0;
    execution::ToolLaunch launch;
    execution::CallCallbacks callbacks;
    bool cancelled = false;
    bool done = false;
  };

  execution::RunId run(const execution::ToolLaunch& launch,
                       execution::CallCallbacks callbacks) override {
    runs.push_back(Run{next_id_, launch, std::move(callbacks)});
    return next_id_++;
  }
  void cancel(execution::RunId id) override {
    for (auto& r : runs)
      if (r.id == id && !r.done) r.cancelled = true;
  }
  void terminate_all(std::chrono::milliseconds) override { terminated = true; }
  void warm(const std::vector<execution::WarmTarget>& targets) override {
    std::vector<std::string> scripts;
    for (const auto& t : targets) scripts.push_back(t.script);
    warmed.push_back(scripts);
  }
  void retire_warm() override { retired = true; }

  // Calls started and not yet ended.
  std::size_t running() const {
    std::size_t n = 0;
    for (const auto& r : runs) n += r.done ? 0 : 1;
    return n;
  }
  // Ends run `index` (in start order) with `outcome`.
  void end(std::size_t index, execution::Outcome outcome) {
    Run& r = runs.at(index);
    r.done = true;
    auto on_done = std::move(r.callbacks.on_done);
    r.callbacks = {};
    on_done(std::move(outcome));
  }
  // Ends run `index` as a tool that printed `text` and exited with `status`.
  void exit(std::size_t index, int status = 0, std::string text = "") {
    execution::Outcome o;
    o.ending = execution::Ending::kExited;
    o.exit_code = status;
    o.stdout_total = text.size();
    o.stdout_head = std::move(text);
    end(index, std::move(o));
  }
  // Ends run `index` the way the real runner ends a cancelled call.
  void end_cancelled(std::size_t index) {
    execution::Outcome o;
    o.ending = execution::Ending::kCancelled;
    o.signal = 15;
    end(index, std::move(o));
  }
  void event(std::size_t index, execution::ChannelEvent e) {
    runs.at(index).callbacks.on_event(std::move(e));
  }

  std::vector<Run> runs;
  std::vector<std::vector<std::string>> warmed;
  bool terminated = false;
  bool retired = false;

 private:
  execution::RunId next_id_ = 1;
};

}  // namespace mcpsh::testing
