// The probe script (discovery::make_probe_launch) run by the real bash, in a child whose
// fork() the kernel refuses (a seccomp filter on clone with fork's flags; exec and vfork
// stay allowed): given the host's memfd on fd 3, the probe lists a script's functions
// without forking; without one, its fallback (a command substitution) needs a fork, which
// shows that the filter bites.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "discovery/script_probe.h"
#include "syscall_fault.h"
#include "temp_dir.h"

namespace mcpsh::discovery {
namespace {

constexpr const char* kScript =
    "# Greets.\n"
    "tool_greet() { echo hi; }\n"
    "resource_notes() { echo notes; }\n"
    "helper() { :; }\n";

struct ProbeRun {
  int status = -1;  // the child's exit status; 3: no seccomp here
  std::string out;
};

// What the child gets on fd 3: nothing, a memfd as the host gives it, or a memfd of 90
// bytes sealed against growing, whose writes past its end fail (as under a memory limit).
// 90 bytes hold the probe's mark line and its "names" line (at most 86 bytes together),
// never its end line as well.
enum class Fd3 { kNone, kMemfd, kMemfdThatCannotGrow };
constexpr off_t kCannotGrowPast = 90;

// Runs the probe of `script` in a child, with fork() refused unless `may_fork`.
ProbeRun run_probe(const std::string& script, Fd3 fd3, bool may_fork) {
  const auto spec = make_probe_launch("/bin/bash", script, std::chrono::seconds(10));
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out[2];
  if (::pipe(out) != 0) return {};
  const pid_t child = ::fork();
  if (child < 0) return {};
  if (child == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    ::close(3);
    if (fd3 != Fd3::kNone) {
      const int fd = ::memfd_create("probe-run-test", MFD_ALLOW_SEALING);
      if (fd < 0) ::_exit(4);
      if (fd3 == Fd3::kMemfdThatCannotGrow &&
          (::ftruncate(fd, kCannotGrowPast) != 0 || ::fcntl(fd, F_ADD_SEALS, F_SEAL_GROW) != 0))
        ::_exit(4);
      if (fd != 3 && (::dup2(fd, 3) != 3 || ::close(fd) != 0)) ::_exit(4);
    }
    // glibc's fork(): clone(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, ...).
    using execution::testing::SyscallFault;
    const std::uint32_t fork_flags = CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD;
    if (!may_fork && !execution::testing::install_syscall_fault(
                         SyscallFault{SYS_clone, EPERM, {{0, fork_flags}}},
                         execution::testing::Threads::kCallingOnly))
      ::_exit(3);
    ::execv(argv[0], argv.data());
    ::_exit(5);
  }
  ::close(out[1]);
  ProbeRun run;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) run.out.append(buf, n);
  ::close(out[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::vector<std::string> names(const ProbeReport& r) {
  std::vector<std::string> out;
  for (const auto& f : r.functions) out.push_back(f.name);
  return out;
}

TEST(ProbeRun, ListsTheFunctionsWithoutAForkThroughTheHostsMemfd) {
  testing::TempDir dir;
  const std::string script = dir.write("tools.sh", kScript);
  const ProbeRun run = run_probe(script, Fd3::kMemfd, false);
  if (run.status == 3) GTEST_SKIP() << "seccomp filters are not available";
  ASSERT_EQ(run.status, 0) << run.out;
  const ProbeReport report = parse_probe_report(run.out);
  EXPECT_TRUE(report.completed) << run.out;
  EXPECT_EQ(names(report), (std::vector<std::string>{"tool_greet", "resource_notes"})) << run.out;
}

// The control: the same probe without fd 3 needs its command substitution, which the
// filter refuses, so it finds nothing (and the test above is not passing by accident).
TEST(ProbeRun, WithoutTheMemfdItNeedsAFork) {
  testing::TempDir dir;
  const std::string script = dir.write("tools.sh", kScript);
  const ProbeRun run = run_probe(script, Fd3::kNone, false);
  if (run.status == 3) GTEST_SKIP() << "seccomp filters are not available";
  const ProbeReport report = parse_probe_report(run.out);
  EXPECT_TRUE(report.functions.empty()) << run.out;
}

// A list cut short (here: the file cannot grow past 90 bytes, so the names or the end line
// are never written) is not taken for the whole list: the probe lists the functions with
// its substitution instead.
TEST(ProbeRun, AListCutShortFallsBackToTheSubstitution) {
  testing::TempDir dir;
  const std::string long_name = "resource_" + std::string(150, 'x');
  const std::string script =
      dir.write("tools.sh", "tool_greet() { :; }\n" + long_name + "() { :; }\n");
  const ProbeRun run = run_probe(script, Fd3::kMemfdThatCannotGrow, true);
  ASSERT_EQ(run.status, 0) << run.out;
  const ProbeReport report = parse_probe_report(run.out);
  EXPECT_TRUE(report.completed) << run.out;
  EXPECT_EQ(names(report), (std::vector<std::string>{"tool_greet", long_name})) << run.out;
}

}  // namespace
}  // namespace mcpsh::discovery
