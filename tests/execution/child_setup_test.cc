// Every system call a child makes between fork and exec is checked: made to fail for real
// (a seccomp filter, or a limit the kernel refuses), the run ends as not started, naming
// the call. Older kernels without close_range (or its CLOEXEC flag) get the fallback, in
// the child and in the watchdog. Each case runs in a forked host (see runner_harness.h).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "execution/escapees.h"
#include "runner_harness.h"
#include "syscall_fault.h"

namespace mcpsh::execution {
namespace {

using testing::bash;
using testing::in_forked_host;
using testing::install_syscall_fault;
using testing::run_to_end;
using testing::SyscallFault;

bool has_effective_capability(int cap) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  if (::syscall(SYS_capget, &header, data) != 0) return false;
  return data[cap / 32].effective & (1U << (cap % 32));
}

struct FaultCase {
  const char* name;
  SyscallFault fault;
  const char* expected_error;  // start_error begins with this
  int needs_capability = -1;   // the call is only made when the host has it
};

void PrintTo(const FaultCase& c, std::ostream* out) { *out << c.name; }

class ChildSetupFault : public ::testing::TestWithParam<FaultCase> {};

TEST_P(ChildSetupFault, EndsTheRunAsNotStartedNamingTheCall) {
  const FaultCase& c = GetParam();
  if (c.needs_capability >= 0 && !has_effective_capability(c.needs_capability))
    GTEST_SKIP() << "the host lacks the capability that makes the child reach that call";
  const std::string result = in_forked_host([&]() -> std::string {
    boost::asio::io_context io;
    // Hidden: the children then also drop CAP_SYS_PTRACE, and make those calls too.
    ProcessRunner runner(io, RunnerOptions{.hide_host_from_tools = true});
    if (!install_syscall_fault(c.fault)) return "SKIP";
    Limits limits;
    limits.cpu_seconds = 100;
    testing::Report r = run_to_end(io, runner, bash("echo ran", limits));
    if (!r.outcome) return "no outcome";
    if (r.outcome->ending != Ending::kFailedToStart)
      return "ended as " + describe_ending(*r.outcome) + ", stdout " + r.outcome->stdout_head;
    if (r.outcome->start_error.rfind(c.expected_error, 0) != 0)
      return "start_error: " + r.outcome->start_error;
    if (!testing::drive_until(io, [] { return testing::children_except_watchdogs().empty(); }))
      return "the failed child was not reaped";
    return "";
  });
  if (result == "SKIP") GTEST_SKIP() << "seccomp filters are not available";
  EXPECT_EQ(result, "");
}

INSTANTIATE_TEST_SUITE_P(
    EveryCall, ChildSetupFault,
    ::testing::Values(
        FaultCase{"setpgid", {SYS_setpgid, EPERM, {}}, "setpgid: Operation not permitted"},
        FaultCase{"pdeathsig",
                  {SYS_prctl, EINVAL, {{0, PR_SET_PDEATHSIG}}},
                  "prctl(PR_SET_PDEATHSIG): Invalid argument"},
        FaultCase{
            "sigaction", {SYS_rt_sigaction, EINVAL, {{0, SIGPIPE}}}, "sigaction: Invalid argument"},
        FaultCase{"sigprocmask",
                  {SYS_rt_sigprocmask, EFAULT, {{0, SIG_SETMASK}}},
                  "sigprocmask: Bad address"},
        FaultCase{"dup2", {SYS_dup3, EMFILE, {{1, 1}}}, "dup2: Too many open files"},
        FaultCase{"fcntl",
                  {SYS_fcntl, EPERM, {{0, 3}, {1, F_SETFD}}},
                  "fcntl(F_SETFD): Operation not permitted"},
        FaultCase{
            "close_range", {SYS_close_range, EPERM, {}}, "close_range: Operation not permitted"},
        FaultCase{"rlimit_cpu",
                  {SYS_prlimit64, EPERM, {{1, RLIMIT_CPU}}},
                  "setrlimit(RLIMIT_CPU): Operation not permitted"},
        FaultCase{"capget", {SYS_capget, EPERM, {}}, "capget: Operation not permitted"},
        FaultCase{
            "capset", {SYS_capset, EPERM, {}}, "capset: Operation not permitted", CAP_SYS_PTRACE},
        FaultCase{"capbset_drop",
                  {SYS_prctl, EPERM, {{0, PR_CAPBSET_DROP}}},
                  "prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE): Operation not permitted",
                  CAP_SETPCAP},
        FaultCase{"ambient",
                  {SYS_prctl, EPERM, {{0, PR_CAP_AMBIENT}}},
                  "prctl(PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE): Operation not permitted"}),
    [](const auto& info) { return std::string(info.param.name); });

// No filter here: the kernel itself refuses a limit above the hard one to a process
// without CAP_SYS_RESOURCE.
TEST(ChildSetup, ACpuLimitAboveTheHardLimitIsRefusedAndSaid) {
  const std::string result = in_forked_host([]() -> std::string {
    rlimit low{1'000'000, 1'000'000};
    if (::setrlimit(RLIMIT_CPU, &low) != 0) return "setrlimit in the test failed";
    if (has_effective_capability(CAP_SYS_RESOURCE)) {
      __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
      __user_cap_data_struct data[2]{};
      ::syscall(SYS_capget, &header, data);
      data[CAP_SYS_RESOURCE / 32].effective &= ~(1U << (CAP_SYS_RESOURCE % 32));
      if (::syscall(SYS_capset, &header, data) != 0) return "capset in the test failed";
    }
    boost::asio::io_context io;
    ProcessRunner runner(io);
    Limits limits;
    limits.cpu_seconds = 2'000'000;
    testing::Report r = run_to_end(io, runner, bash("echo ran", limits));
    if (!r.outcome) return "no outcome";
    if (r.outcome->ending != Ending::kFailedToStart)
      return "ended as " + describe_ending(*r.outcome);
    return r.outcome->start_error;
  });
  EXPECT_EQ(result, "setrlimit(RLIMIT_CPU): Operation not permitted");
}

// A kernel before 5.9 (no close_range: ENOSYS) or before 5.11 (no CLOSE_RANGE_CLOEXEC:
// EINVAL). A descriptor the host holds without close-on-exec must still not reach the
// child.
}  // namespace
}  // namespace mcpsh::execution

namespace mcpsh::execution::testing {
void PrintTo(const SyscallFault& f, std::ostream* out) {
  *out << "syscall " << f.number << " fails with errno " << f.error;
}
}  // namespace mcpsh::execution::testing

namespace mcpsh::execution {
namespace {

class OldKernel : public ::testing::TestWithParam<SyscallFault> {};

TEST_P(OldKernel, NoHostDescriptorReachesTheChild) {
  const SyscallFault fault = GetParam();
  const std::string result = in_forked_host([&]() -> std::string {
    if (!install_syscall_fault(fault)) return "SKIP";
    boost::asio::io_context io;
    ProcessRunner runner(io);
    const int stray = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC, after the runner
    if (stray < 0) return "open failed";
    testing::Report r = run_to_end(
        io, runner,
        bash("for fd in $(seq 0 1023); do [[ -e /proc/$$/fd/$fd ]] && printf '%s ' $fd; done"));
    if (!r.outcome) return "no outcome";
    if (r.outcome->ending != Ending::kExited) return "ended as " + describe_ending(*r.outcome);
    return r.outcome->stdout_head;
  });
  if (result == "SKIP") GTEST_SKIP() << "seccomp filters are not available";
  EXPECT_EQ(result, "0 1 2 ");
}

// The watchdog closes every descriptor it inherited, its own pipe's write end above all:
// holding that, it would never see the host die and would outlive it for ever. The host
// here exits without cleaning up (as when killed); the watchdog, re-parented to this test
// (a subreaper), must then exit by itself.
TEST_P(OldKernel, TheWatchdogStillSeesTheHostGo) {
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
  const SyscallFault fault = GetParam();
  const pid_t host = ::fork();
  ASSERT_GE(host, 0);
  if (host == 0) {
    if (!install_syscall_fault(fault)) ::_exit(3);
    boost::asio::io_context io;
    new ProcessRunner(io);  // never destroyed: the host "dies"
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(host, &status, 0), host);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) GTEST_SKIP() << "no seccomp filters";
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // Hang guard only: the watchdog exits as soon as it is scheduled.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
    if (pid < 0 && errno == ECHILD) break;  // all gone
    if (pid == 0 && std::chrono::steady_clock::now() > give_up) {
      for (pid_t left : own_children()) ::kill(left, SIGKILL);
      FAIL() << "the watchdog outlived its host";
    }
    if (pid == 0) ::usleep(10'000);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, OldKernel,
    ::testing::Values(SyscallFault{SYS_close_range, ENOSYS, {}},
                      SyscallFault{SYS_close_range, EINVAL, {{2, 4 /* CLOSE_RANGE_CLOEXEC */}}}),
    [](const auto& info) { return info.param.error == ENOSYS ? "NoCloseRange" : "NoCloexecFlag"; });

// epoll refusing to watch the child's pipes (ENOMEM, or fs.epoll.max_user_watches): the
// child is running by then and must not be left unsupervised.
TEST(ChildSetup, AChildWhosePipesCannotBeWatchedIsKilledAndReaped) {
  const std::string result = in_forked_host([]() -> std::string {
    boost::asio::io_context io;
    ProcessRunner runner(io);
    if (!install_syscall_fault({SYS_epoll_ctl, ENOMEM, {{1, EPOLL_CTL_ADD}}})) return "SKIP";
    testing::Report r = run_to_end(io, runner, bash("exec sleep 1000"));
    if (!r.outcome) return "no outcome";
    if (r.outcome->ending != Ending::kFailedToStart)
      return "ended as " + describe_ending(*r.outcome);
    if (r.outcome->start_error.find("Cannot allocate memory") == std::string::npos)
      return "start_error: " + r.outcome->start_error;
    if (!testing::drive_until(io, [] { return testing::children_except_watchdogs().empty(); }))
      return "the child was left running";
    return "";
  });
  if (result == "SKIP") GTEST_SKIP() << "seccomp filters are not available";
  EXPECT_EQ(result, "");
}

}  // namespace
}  // namespace mcpsh::execution
