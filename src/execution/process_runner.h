#pragma once
// ProcessRunner: the only place in the host that starts processes.
//
// Contract:
//  - Every child gets stdin /dev/null, stdout/stderr pipes, optionally fd 3 (payload) and
//    fd 4 (channel), its own process group, and no other descriptor of ours: every pipe
//    end is close-on-exec from birth, descriptors the host inherited are marked so when
//    the runner is built, and each child marks everything above 4 before exec.
//  - A run is finished when its leader was reaped AND its pipes reached EOF (or a short
//    drain period passed after the group was killed: an escaped grandchild holding a pipe
//    cannot hang it). Then on_done is called exactly once, on the io_context's thread.
//  - When the leader exits, whatever is left in its group is killed (SIGKILL).
//  - The host is a child subreaper and every run's environment carries a cookie
//    (escapees.h): a descendant that left the group with setsid()/setpgid() is killed
//    once it is re-parented to us and its run has ended.
//  - The child gets PR_SET_PDEATHSIG(SIGKILL): if the host dies, the leader dies too.
//    Its descendants are killed by the watchdog (watchdog.h), a process forked when the
//    runner is built that outlives the host just long enough to kill every process
//    carrying its cookie (see adr/0004-process-model.md for what is not covered).
//  - Deadline, cancel() and terminate_all() send SIGTERM to the group, then SIGKILL
//    after limits.kill_grace.
//  - Exactly one reaper: the runner reaps every child of this process (SIGCHLD on an
//    asio::signal_set). Nothing else in the program may wait() for children.
//  - The destructor kills every group still running and every escapee, and reaps them
//    (and then the watchdog, which finds nothing left and exits).
//  - Single-threaded: call everything from the io_context's thread.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "execution/runner.h"

namespace boost::asio {
class io_context;
}

namespace mcpsh::execution {

class ProcessRunner final : public Runner {
 public:
  explicit ProcessRunner(boost::asio::io_context& io);
  ~ProcessRunner();
  ProcessRunner(const ProcessRunner&) = delete;
  ProcessRunner& operator=(const ProcessRunner&) = delete;

  // Starts a child. If it cannot start, on_done is still called (asynchronously) with
  // Ending::kFailedToStart. Returns an id for cancel().
  RunId start(const LaunchSpec& spec, RunCallbacks callbacks) override;

  // Terminates a run (SIGTERM, then SIGKILL). Unknown or finished ids are ignored.
  void cancel(RunId id) override;
  void set_deadline(RunId id, std::chrono::milliseconds timeout) override;

  // Terminates every run with Ending::kShutdown; grace may be shorter than the runs' own.
  void terminate_all(std::chrono::milliseconds grace) override;

  std::size_t running() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpsh::execution
