#pragma once
// The watchdog: a tiny process forked from the host when the runner is built, which
// outlives the host just long enough to kill what the host started when the host dies
// without cleaning up (SIGKILL, a crash, the OOM killer).
//
// PR_SET_PDEATHSIG only reaches the host's direct children; grandchildren and escapees
// would be re-parented to init and live on. The watchdog holds the read end of a pipe
// whose only writer is the host: when the host is gone, for whatever reason, the read
// returns end of file, and the watchdog kills (SIGKILL, through a pidfd, so a recycled
// pid is never hit) every process whose environment carries this host's run cookie
// (escapees.h), removes the scratch folders of its sandboxed tools (sandbox.h's
// scratch_root, made before the fork), then exits. When the host exits normally, the runner has
// already killed everything and removed them, and the watchdog finds nothing.
//
// It sits in a process group of its own (so Ctrl-C or a signal to the host's group does
// not take it along), blocks every catchable signal, and holds none of the host's
// descriptors (its stdin is the pipe, stdout and stderr /dev/null): a client waiting for
// the end of our stdout or stderr is never kept waiting by it.
//
// Not covered: a process that cleared its environment (env -i, some daemons) carries no
// cookie; and a watchdog killed together with the host (SIGKILL to it by pid, or to the
// whole cgroup) cannot act.
#include <sys/types.h>

namespace mcpsh::execution {

class Watchdog {
 public:
  // Forks the watchdog. Best effort: if fork fails there is simply none (pid() == -1).
  Watchdog();
  // Closes the pipe: the watchdog sweeps, finds what the runner left (nothing, normally)
  // and exits; it is reaped here (waiting at most 200 ms).
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  pid_t pid() const { return pid_; }
  // It died before us (someone killed it) and the runner reaped it: its pid may now be
  // anyone's, so it is no longer special.
  void forget() { pid_ = -1; }

 private:
  pid_t pid_ = -1;
  int pipe_ = -1;  // our write end; close-on-exec, so no tool ever holds it
};

}  // namespace mcpsh::execution
