#include "execution/child_setup.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "execution/child_fds.h"
#include "execution/raw_syscall.h"

namespace mcpsh::execution {

namespace {

// What failed, as it is reported to the host; the index travels through the pipe.
enum Step : int {
  kSetpgid,
  kDeathSignal,
  kSigaction,
  kSigprocmask,
  kDup2,
  kFcntl,
  kCloseRange,
  kRlimitCpu,
  kRlimitAs,
  kCapget,
  kCapbsetDrop,
  kCapset,
  kAmbientLower,
  kSetsid,
  kStepCount
};

constexpr const char* kStepNames[kStepCount] = {
    "setpgid",
    "prctl(PR_SET_PDEATHSIG)",
    "sigaction",
    "sigprocmask",
    "dup2",
    "fcntl(F_SETFD)",
    "close_range",
    "setrlimit(RLIMIT_CPU)",
    "setrlimit(RLIMIT_AS)",
    "capget",
    "prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE)",
    "capset",
    "prctl(PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE)",
    "setsid",
};

// Steps of the sandbox are reported as kSandboxSteps + its own step number.
constexpr int kSandboxSteps = 100;

struct Report {
  int step;
  int error;
};

[[noreturn]] void fail(const ChildPlan& plan, int step, int error) {
  const Report report{step, error};
  while (raw_syscall(SYS_write, plan.report, reinterpret_cast<long>(&report), sizeof report) < 0 &&
         errno == EINTR) {
  }
  raw_syscall(SYS_exit_group, kChildSetupFailedStatus);
  __builtin_unreachable();
}

// The kernel's struct sigaction (not libc's): handler, flags, restorer, mask.
struct KernelSigaction {
  void (*handler)(int);
  unsigned long flags;
  void (*restorer)();
  std::uint64_t mask;
};

// Signals 1 .. 64: the kernel's count on every architecture we build for.
constexpr int kKernelSignals = 65;

struct Rlimit64 {
  std::uint64_t cur, max;
};

bool set_limit(int resource, std::uint64_t soft, std::uint64_t hard) {
  const Rlimit64 limit{soft, hard};
  return raw_syscall(SYS_prlimit64, 0, resource, reinterpret_cast<long>(&limit), 0) == 0;
}

// CAP_SYS_PTRACE would let a tool running as root open /proc/<host>/fd/* and
// /proc/<host>/mem even though the host is not dumpable. It leaves the bounding set (for
// root, exec refills the permitted set from it) when we may change that set, and the
// effective, permitted, inheritable and ambient sets. A host without it has nothing to do.
void drop_ptrace(const ChildPlan& plan) {
  constexpr unsigned bit = 1U << CAP_SYS_PTRACE;  // in the first 32-bit word
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (raw_syscall(SYS_capget, reinterpret_cast<long>(&header), reinterpret_cast<long>(data)) != 0)
    fail(plan, kCapget, errno);
  const bool may_change_bounding = data[0].effective & (1U << CAP_SETPCAP);
  if (may_change_bounding && raw_syscall(SYS_prctl, PR_CAPBSET_READ, CAP_SYS_PTRACE) == 1 &&
      raw_syscall(SYS_prctl, PR_CAPBSET_DROP, CAP_SYS_PTRACE) != 0)
    fail(plan, kCapbsetDrop, errno);
  if ((data[0].effective | data[0].permitted | data[0].inheritable) & bit) {
    data[0].effective &= ~bit;
    data[0].permitted &= ~bit;
    data[0].inheritable &= ~bit;
    if (raw_syscall(SYS_capset, reinterpret_cast<long>(&header), reinterpret_cast<long>(data)) != 0)
      fail(plan, kCapset, errno);
  }
  // Gone from the permitted set it is gone from the ambient one too; said explicitly, as
  // kernels before 4.3 have no ambient set (EINVAL).
  if (raw_syscall(SYS_prctl, PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE, 0, 0) != 0 &&
      errno != EINVAL)
    fail(plan, kAmbientLower, errno);
}

}  // namespace

void run_child_setup(const ChildPlan& plan) {
  // Its own process group: the host signals the tool and everything it starts at once. A
  // sandboxed one gets a session of its own too (the group is the same): no controlling
  // terminal, so none of the host's to push input into or to hang up.
  if (plan.confinement.active()) {
    if (raw_syscall(SYS_setsid) < 0) fail(plan, kSetsid, errno);
  } else if (raw_syscall(SYS_setpgid, 0, 0) != 0) {
    fail(plan, kSetpgid, errno);
  }
  // The kernel kills the child when the host dies. It may have died before the prctl.
  if (raw_syscall(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL) != 0) fail(plan, kDeathSignal, errno);
  if (raw_syscall(SYS_getppid) != plan.parent) raw_syscall(SYS_exit_group, 127);
  // The host ignores SIGPIPE and Asio catches others; a tool must start with defaults. Every
  // signal the host handles is reset before the mask is emptied: this child shares the
  // host's memory until it execs (vfork), where a handler of the host's must never run.
  const KernelSigaction dfl{SIG_DFL, 0, nullptr, 0};
  for (int sig = 1; sig < kKernelSignals; ++sig) {
    KernelSigaction current{};
    if (sig == SIGKILL || sig == SIGSTOP ||
        raw_syscall(SYS_rt_sigaction, sig, 0, reinterpret_cast<long>(&current),
                    sizeof current.mask) != 0 ||
        current.handler == SIG_DFL || current.handler == SIG_IGN)
      continue;
    if (raw_syscall(SYS_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, sizeof dfl.mask) != 0)
      fail(plan, kSigaction, errno);
  }
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT, SIGXCPU})
    if (raw_syscall(SYS_rt_sigaction, sig, reinterpret_cast<long>(&dfl), 0, sizeof dfl.mask) != 0)
      fail(plan, kSigaction, errno);
  // Under isolate, bwrap stands between the host and the tool, and SIGTERM would end it at
  // once, and with it the namespace: the tool's grace period would be lost. bwrap ignores
  // it; confine_exec gives the tool the default back before it execs.
  const KernelSigaction ign{SIG_IGN, 0, nullptr, 0};
  if (plan.confinement.hand_off &&
      raw_syscall(SYS_rt_sigaction, SIGTERM, reinterpret_cast<long>(&ign), 0, sizeof ign.mask) != 0)
    fail(plan, kSigaction, errno);
  const std::uint64_t none = 0;
  if (raw_syscall(SYS_rt_sigprocmask, SIG_SETMASK, reinterpret_cast<long>(&none), 0, sizeof none) !=
      0)
    fail(plan, kSigprocmask, errno);
  // dup2 clears close-on-exec on the target: these (at most six) are all the child
  // inherits. dup3 with no flags is dup2 on every architecture (the sources are never
  // equal to their targets).
  const int sources[] = {plan.devnull, plan.out, plan.err, plan.payload, plan.channel, plan.extra};
  for (int target = 0; target < 6; ++target) {
    if (sources[target] < 0) {
      // Anything open there in the host without close-on-exec (descriptors our own
      // client leaked into us, a library's) must not reach the tool. EBADF: not open.
      if (raw_syscall(SYS_fcntl, target, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF)
        fail(plan, kFcntl, errno);
    } else if (raw_syscall(SYS_dup3, sources[target], target, 0) != target) {
      fail(plan, kDup2, errno);
    }
  }
  if (int error = mark_cloexec_from(6)) fail(plan, kCloseRange, error);
  if (plan.cpu_seconds) {
    // SIGXCPU at the soft limit, SIGKILL one second later if it is caught.
    const std::uint64_t soft = *plan.cpu_seconds;
    const std::uint64_t hard = soft >= RLIM_INFINITY - 1 ? RLIM_INFINITY : soft + 1;
    if (!set_limit(RLIMIT_CPU, soft, hard)) fail(plan, kRlimitCpu, errno);
  }
  if (plan.memory_bytes && !set_limit(RLIMIT_AS, *plan.memory_bytes, *plan.memory_bytes))
    fail(plan, kRlimitAs, errno);
  if (plan.drop_ptrace) drop_ptrace(plan);
  if (plan.niceness > 0) {
    // Best effort, and unchecked on purpose: a priority is a courtesy to the host, and a
    // refusal (seccomp, an LSM) must not stop the launch. The raw getpriority returns
    // 20 - nice; raising nice needs no privilege.
    const long current = 20 - raw_syscall(SYS_getpriority, PRIO_PROCESS, 0);
    raw_syscall(SYS_setpriority, PRIO_PROCESS, 0, std::min<long>(current + plan.niceness, 19));
  }
  if (int step = sandbox::apply_in_child(plan.confinement)) fail(plan, kSandboxSteps + step, errno);
}

std::optional<std::string> read_child_setup_error(int fd) {
  Report report{};
  ssize_t n;
  while ((n = ::read(fd, &report, sizeof report)) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof report)) return std::nullopt;
  const char* step = report.step >= 0 && report.step < kStepCount ? kStepNames[report.step]
                     : report.step > kSandboxSteps
                         ? sandbox::child_step_name(report.step - kSandboxSteps)
                         : "child set-up";
  return std::string(step) + ": " + std::strerror(report.error);
}

}  // namespace mcpsh::execution
