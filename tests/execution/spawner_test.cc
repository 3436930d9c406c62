// ProcessRunner starts children on a thread of its own (the spawner): the loop's thread
// never forks, and whatever order the fork, the child's exit and the loop's reaper come
// in, each run ends once, with its own status, and nothing is left behind.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

#include "runner_harness.h"
#include "syscall_fault.h"

namespace mcpsh::execution {
namespace {

using testing::bash;
using testing::drive_until;
using testing::in_forked_host;
using testing::install_syscall_fault;
using testing::record_into;
using testing::Report;
using testing::Threads;

// The loop's thread may not fork at all (clone refused to it alone): runs still start,
// so the fork happens elsewhere and never holds up the loop.
TEST(Spawner, TheLoopThreadNeverForks) {
#if defined(__SANITIZE_THREAD__)
  // The forked test host starts the runner's threads after a fork of a process TSan
  // already runs threads in, which TSan does not support; the ASan and Release runs cover it.
  GTEST_SKIP() << "not under ThreadSanitizer (threads started in a forked child)";
#endif
  const std::string result = in_forked_host([]() -> std::string {
    boost::asio::io_context io;
    ProcessRunner runner(io);
    for (long call : {static_cast<long>(SYS_clone), static_cast<long>(SYS_clone3)})
      if (!install_syscall_fault({call, EAGAIN, {}}, Threads::kCallingOnly)) return "SKIP";
    if (pid_t pid = ::fork(); pid >= 0) {
      if (pid == 0) ::_exit(0);
      return "the fault does not hold on this thread";
    }
    testing::Report r = testing::run_to_end(io, runner, bash("echo ran"));
    if (!r.outcome) return "no outcome";
    if (r.outcome->ending != Ending::kExited || r.outcome->exit_code != 0)
      return "ended as " + describe_ending(*r.outcome) + ": " + r.outcome->start_error;
    if (r.outcome->stdout_head != "ran\n") return "stdout: " + r.outcome->stdout_head;
    return "";
  });
  if (result == "SKIP") GTEST_SKIP() << "seccomp filters are not available";
  EXPECT_EQ(result, "");
}

// The loop sleeps right after the starts, so the children have exited (and SIGCHLD is
// pending) before the spawner's reports are handled: the reaper meets leaders the loop has
// not claimed yet. Several rounds, so that both orders (report first, reaper first) occur.
TEST(Spawner, ChildrenThatExitBeforeTheLoopHearsOfThemKeepTheirOwnStatus) {
  boost::asio::io_context io;
  ProcessRunner runner(io);
  for (int round = 0; round < 5; ++round) {
    constexpr int kCount = 12;
    std::vector<Report> reports(kCount);
    for (int i = 0; i < kCount; ++i)
      runner.start(bash("echo " + std::to_string(i) + "; exit " + std::to_string(i + 1)),
                   record_into(reports[i]));
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    ASSERT_TRUE(drive_until(io, [&] {
      for (auto& r : reports)
        if (!r.outcome) return false;
      return true;
    }));
    for (int i = 0; i < kCount; ++i) {
      const Outcome& o = *reports[i].outcome;
      EXPECT_EQ(o.ending, Ending::kExited) << describe_ending(o);
      EXPECT_EQ(o.exit_code, i + 1);
      EXPECT_EQ(o.stdout_head, std::to_string(i) + "\n");
      EXPECT_EQ(reports[i].done_calls, 1);
    }
  }
  EXPECT_TRUE(drive_until(io, [] { return testing::children_except_watchdogs().empty(); }));
}

// Cancelled, or past a deadline, before the child exists: it is signalled once it does,
// and the run ends with the reason given first.
TEST(Spawner, ARunStoppedBeforeItsChildExistsEndsAsAsked) {
  boost::asio::io_context io;
  ProcessRunner runner(io);
  Report cancelled, timed_out, shut_down;
  RunId id = runner.start(bash("exec sleep 1000"), record_into(cancelled));
  runner.cancel(id);
  RunId late = runner.start(bash("exec sleep 1000"), record_into(timed_out));
  runner.set_deadline(late, std::chrono::milliseconds(1));
  runner.start(bash("exec sleep 1000"), record_into(shut_down));
  runner.terminate_all(std::chrono::milliseconds(50));  // also the first two: kept as they were
  ASSERT_TRUE(
      drive_until(io, [&] { return cancelled.outcome && timed_out.outcome && shut_down.outcome; }));
  EXPECT_EQ(cancelled.outcome->ending, Ending::kCancelled);
  EXPECT_EQ(timed_out.outcome->ending, Ending::kShutdown);  // terminate_all came before 1 ms
  EXPECT_EQ(shut_down.outcome->ending, Ending::kShutdown);
  for (auto* r : {&cancelled, &timed_out, &shut_down}) EXPECT_EQ(r->done_calls, 1);
  EXPECT_TRUE(drive_until(io, [] { return testing::children_except_watchdogs().empty(); }));
}

TEST(Spawner, ADeadlineBeforeTheChildExistsEndsItAsTimedOut) {
  boost::asio::io_context io;
  ProcessRunner runner(io);
  Report r;
  Limits limits;
  limits.timeout = std::chrono::milliseconds(1);
  limits.kill_grace = std::chrono::milliseconds(100);
  runner.start(bash("trap '' TERM; sleep 1000", limits), record_into(r));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the deadline is due first
  ASSERT_TRUE(drive_until(io, [&] { return r.outcome.has_value(); }));
  EXPECT_EQ(r.outcome->ending, Ending::kTimedOut);
  EXPECT_EQ(r.done_calls, 1);
}

}  // namespace
}  // namespace mcpsh::execution
