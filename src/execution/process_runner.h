#pragma once
// ProcessRunner: the only place in the host that starts processes.
//
// Contract:
//  - Every child gets stdin /dev/null, stdout/stderr pipes, optionally fd 3 (payload),
//    fd 4 (channel) and fd 5, its own process group, and no other descriptor of ours:
//    every pipe end is close-on-exec from birth, descriptors the host inherited are marked
//    so when the runner is built, and each child marks everything above 5 before exec
//    (child_fds.h, also on kernels without close_range).
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
//    (and then the watchdog, which finds nothing left and exits). Runs still in flight
//    then get no on_done: their callbacks are destroyed unused. Handlers still queued on
//    the io_context hold no pointer to the runner that can dangle: they do nothing when
//    they run after it is gone (also when they run from an on_done that destroyed it).
//  - A child whose set-up between fork and exec fails (child_setup.h), or whose pipes
//    cannot be watched after the fork, ends as Ending::kFailedToStart with a start_error
//    naming the failed call; in the second case its group is killed and reaped.
//  - A run's channel (fd 4) lines reach on_channel_line up to limits.max_channel bytes;
//    the rest are counted and dropped, and one line on on_stderr_line says how much.
//  - Fork, child set-up and the wait for exec happen on a thread of the runner's own (the
//    spawner), never on the io_context's thread: start() returns before the child exists,
//    and a run cancelled or timed out before then is signalled as soon as it does. The
//    spawner thread lives as long as the runner: PR_SET_PDEATHSIG follows the thread
//    that forked.
//  - Single-threaded API: call everything from the io_context's thread.
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

struct RunnerOptions {
  // Makes the host process non-dumpable (prctl(PR_SET_DUMPABLE, 0)) when the runner is
  // built, and takes CAP_SYS_PTRACE from every child (child_setup.h): /proc/<host>/fd/*
  // and /proc/<host>/mem are then closed to every tool, also to one running as root. A
  // tool can then reach no descriptor of the host: not the client's pipes, not another
  // call's arguments. Every launch must then get what it needs as an inherited
  // descriptor (fd 3, fd 5), never by opening /proc/<host>/fd/N.
  bool hide_host_from_tools = false;
};

class ProcessRunner final : public Runner {
 public:
  // Throws std::system_error when the host cannot be hidden as asked.
  explicit ProcessRunner(boost::asio::io_context& io, RunnerOptions options = {});
  ~ProcessRunner();
  ProcessRunner(const ProcessRunner&) = delete;
  ProcessRunner& operator=(const ProcessRunner&) = delete;

  // Starts a child (on the spawner thread: this returns at once). If it cannot start,
  // on_done is still called (asynchronously) with Ending::kFailedToStart. Returns an id
  // for cancel().
  RunId start(const LaunchSpec& spec, RunCallbacks callbacks) override;

  // Terminates a run (SIGTERM, then SIGKILL). Unknown or finished ids are ignored.
  void cancel(RunId id) override;
  void set_deadline(RunId id, std::chrono::milliseconds timeout) override;

  // Terminates every run with Ending::kShutdown; grace may be shorter than the runs' own.
  void terminate_all(std::chrono::milliseconds grace) override;

  // Runs started and not yet finished (each a process group), for /metrics.
  std::size_t running() const;

 private:
  struct Impl;
  // Shared only so that a handler running when the runner is destroyed (an on_done that
  // destroys it) keeps it whole until that handler returns; nobody else holds it.
  std::shared_ptr<Impl> impl_;
};

}  // namespace mcpsh::execution
