#pragma once
// What a child does between fork and exec, and how a failure there reaches the host.
//
// Contract:
//  - run_child_setup() runs in the child before exec, which vfork made: it shares the
//    host's memory until then, so raw system calls only (raw_syscall.h), no allocation, no
//    write outside its own stack, and it is entered with every signal blocked. It gives the child
//    its own process group, a death signal, default signal dispositions and an empty mask, its
//    descriptors 0..5 and none other, its resource limits, and, when asked, takes CAP_SYS_PTRACE
//    away (so that a tool running as root cannot open the descriptors or memory of a non-dumpable
//    host, see ProcessRunner), and last its sandbox (sandbox/sandbox.h).
//  - Every one of those calls is checked. When one fails, the child writes which one and
//    its errno to `report` (the write end of a close-on-exec pipe the host made) and ends
//    with kChildSetupFailedStatus without exec'ing; the host reads the pipe with
//    read_child_setup_error() once the launch returned and reports the run as not started.
//  - A successful exec closes `report` (close-on-exec): the host then reads nothing.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "sandbox/sandbox.h"

namespace mcpsh::execution {

// The exit status of a child whose set-up failed, should its report be lost.
inline constexpr int kChildSetupFailedStatus = 125;

struct ChildPlan {
  pid_t parent = -1;  // the host; the child gives up if it is already gone
  // Descriptors to become the child's 0..5 (-1: none); all numbered above 5, so the dup2
  // calls cannot overwrite one another.
  int devnull = -1, out = -1, err = -1, payload = -1, channel = -1, extra = -1;
  int report = -1;
  std::optional<std::uint64_t> cpu_seconds;   // RLIMIT_CPU
  std::optional<std::uint64_t> memory_bytes;  // RLIMIT_AS
  // Without CAP_SYS_PTRACE, a child of a root host can no longer open /proc/<host>/fd/N
  // even when the host is dumpable (the kernel also wants the opener's capabilities to
  // cover the target's): this goes with RunnerOptions::hide_host_from_tools.
  bool drop_ptrace = false;
  int niceness = 0;  // added to the nice value (setpriority, best effort), when > 0
  // Applied last (no_new_privs, Landlock, seccomp), once nothing else needs a privilege.
  sandbox::ChildConfinement confinement;
};

// Returns when exec may follow; otherwise the child ends inside.
void run_child_setup(const ChildPlan& plan);

// Host side, after the launch returned: "setpgid: Operation not permitted" when the
// child reported a failed set-up on the pipe's read end `fd` (non-blocking), else nullopt.
std::optional<std::string> read_child_setup_error(int fd);

}  // namespace mcpsh::execution
