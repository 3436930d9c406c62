#pragma once
// Finding descendants that left their tool's process group.
//
// killpg reaches a tool's whole process group, but a descendant that calls setsid() or
// setpgid() leaves it (an "escapee"). The host makes itself a child subreaper, so when
// the process that started an escapee exits, the escapee is re-parented to the host
// (not to init) and shows up among the host's children. Every run stamps its environment
// with a cookie naming the run, so an escapee can be traced back to its run even after
// it changed session and group.
//
// Limits, stated in adr/0004-process-model.md: an escapee whose parent is still alive is
// not our child yet; one that exec'ed with a cleared environment cannot be traced to its
// run; and when the host itself is killed with SIGKILL, nothing here runs any more: only
// the watchdog (watchdog.h) is left, and it finds escapees by their cookie alone.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace mcpsh::execution {

// The environment variable every run gets: "<host pid>.<run id>".
inline constexpr const char* kRunCookie = "MCP_SHELL_HOST_RUN";

// prctl(PR_SET_CHILD_SUBREAPER). Returns false if the kernel refuses.
bool become_child_subreaper();

// The children of this process, zombies included: /proc/self/task/*/children, or a scan
// of /proc/*/stat when the kernel does not provide those files.
std::vector<pid_t> own_children();

// The run id in pid's cookie when it carries one of this host's cookies.
std::optional<std::uint64_t> run_cookie_of(pid_t pid);

// killpg(leader, sig) for a run's group. Refuses leader <= 1: killpg(0) would signal the
// host's own group and kill(-1) every process we may signal, so a run whose pid was never
// set can never turn into either.
void signal_group(pid_t leader, int sig);

// SIGKILL to pid, and to its process group when it leads one (an escapee that called
// setsid took its own descendants along). pid must be an unreaped child of this process,
// so that neither number can have been reused by an unrelated process.
void kill_escapee(pid_t pid);

}  // namespace mcpsh::execution
