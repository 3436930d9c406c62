// ProcessRunner's own contract, run for real: bash children, pipes, signals.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <map>

#include "execution/fd_guard.h"
#include "runner_harness.h"

namespace mcpsh::execution {
namespace {

using testing::bash;
using testing::drive_until;
using testing::make_payload_file;
using testing::record_into;
using testing::Report;
using testing::run_to_end;

class ProcessRunnerTest : public ::testing::Test {
 protected:
  boost::asio::io_context io;
  ProcessRunner runner{io};

  Report run(LaunchSpec spec) { return run_to_end(io, runner, std::move(spec)); }
};

// Whether pid is gone or a zombie: nothing of it runs any more.
bool not_running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

TEST_F(ProcessRunnerTest, ExitStatusIsKeptApartFromASignal) {
  Report r = run(bash("exit 9"));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kExited);
  EXPECT_EQ(r.outcome->exit_code, 9);
  EXPECT_EQ(r.outcome->signal, 0);
  EXPECT_EQ(r.done_calls, 1);
}

TEST_F(ProcessRunnerTest, AChildThatKillsItselfIsSignaledNotExited) {
  for (int sig : {SIGKILL, SIGTERM, SIGSEGV}) {
    Report r = run(bash("kill -" + std::to_string(sig) + " $$; exit 3"));
    ASSERT_TRUE(r.outcome);
    EXPECT_EQ(r.outcome->ending, Ending::kSignaled) << sig;
    EXPECT_EQ(r.outcome->signal, sig);
    EXPECT_EQ(r.outcome->exit_code, 0);
    EXPECT_EQ(describe_ending(*r.outcome).rfind("killed by signal " + std::to_string(sig), 0), 0u);
  }
}

TEST_F(ProcessRunnerTest, TwoHundredChildrenAtOnceEachEndOnceWithTheirOwnOutput) {
  constexpr int kCount = 200;
  std::vector<Report> reports(kCount);
  for (int i = 0; i < kCount; ++i)
    runner.start(bash("echo " + std::to_string(i) + "; exit $((" + std::to_string(i) + " % 7))"),
                 record_into(reports[i]));
  ASSERT_TRUE(drive_until(io, [&] {
    for (auto& r : reports)
      if (!r.outcome) return false;
    return true;
  }));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(reports[i].done_calls, 1);
    EXPECT_EQ(reports[i].outcome->ending, Ending::kExited);
    EXPECT_EQ(reports[i].outcome->exit_code, i % 7);
    EXPECT_EQ(reports[i].outcome->stdout_head, std::to_string(i) + "\n");
  }
}

// Background launches (a reload's probes) run niced; others keep the host's nice value.
TEST_F(ProcessRunnerTest, NicenessIsAddedToTheChildsNiceValue) {
  auto nice_of_child = [&](int niceness) {
    LaunchSpec spec = bash("read -ra f < /proc/self/stat; echo \"${f[18]}\"");
    spec.niceness = niceness;
    Report r = run(spec);
    return r.outcome ? r.outcome->stdout_head : "no outcome";
  };
  const std::string base = nice_of_child(0);
  ASSERT_NE(base, "no outcome");
  const int host = std::stoi(base);
  EXPECT_EQ(nice_of_child(7), std::to_string(std::min(host + 7, 19)) + "\n");
  EXPECT_EQ(nice_of_child(50), "19\n");  // clamped
}

TEST_F(ProcessRunnerTest, StdinIsDevNull) {
  Report r = run(bash("readlink /proc/self/fd/0; cat; echo end"));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->stdout_head, "/dev/null\nend\n");
}

TEST_F(ProcessRunnerTest, StdoutKeepsItsHeadAndStderrItsTailWithinTheCaps) {
  Limits limits;
  limits.max_stdout = 1000;
  limits.max_stderr = 100;
  Report r =
      run(bash("for i in $(seq 1 20000); do echo \"out $i\"; echo \"err $i\" >&2; done", limits));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kExited);
  EXPECT_EQ(r.outcome->stdout_head.size(), 1000u);
  EXPECT_EQ(r.outcome->stdout_head.rfind("out 1\nout 2\n", 0), 0u);
  EXPECT_GT(r.outcome->stdout_total, 100000u);
  EXPECT_TRUE(r.outcome->stdout_truncated());
  EXPECT_EQ(r.outcome->stderr_tail.size(), 100u);
  EXPECT_TRUE(r.outcome->stderr_tail.ends_with("err 20000\n"));
  EXPECT_EQ(r.outcome->stderr_total, r.outcome->stdout_total);
  // The log got a bounded share of stderr and one line saying how much it did not get.
  ASSERT_FALSE(r.stderr_lines.empty());
  EXPECT_NE(r.stderr_lines.back().find("more bytes of stderr were not logged"), std::string::npos);
}

TEST_F(ProcessRunnerTest, AGrandchildHoldingThePipesDoesNotHangTheRun) {
  Report r = run(bash("sleep 100 & echo $!"));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kExited);
  EXPECT_EQ(r.outcome->exit_code, 0);
  const pid_t sleeper = std::stoi(r.outcome->stdout_head);
  // Its group was killed when the leader exited.
  EXPECT_TRUE(drive_until(io, [&] { return not_running(sleeper); }));
}

// The child says on its channel when its trap is in place, so the deadline cannot come
// before it (no timing involved).
LaunchSpec ready_then_wait(const std::string& trap, std::chrono::milliseconds grace) {
  Limits limits;
  limits.kill_grace = grace;
  LaunchSpec spec = bash(trap + "echo ready >&4; while :; do sleep 1; done", limits);
  spec.channel = true;
  return spec;
}

void on_ready(Report& report, RunCallbacks& callbacks, std::function<void()> act) {
  callbacks.on_channel_line = [&report, act = std::move(act)](std::string line) {
    report.channel.push_back(line);
    if (line == "ready") act();
  };
}

TEST_F(ProcessRunnerTest, DeadlineSendsSigtermThenSigkillToAChildThatIgnoresTerm) {
  Report r;
  RunCallbacks callbacks = record_into(r);
  RunId id = 0;
  on_ready(r, callbacks, [&] { runner.set_deadline(id, std::chrono::milliseconds(1)); });
  id = runner.start(ready_then_wait("trap '' TERM; ", std::chrono::milliseconds(200)),
                    std::move(callbacks));
  ASSERT_TRUE(drive_until(io, [&] { return r.outcome.has_value(); }));
  EXPECT_EQ(r.outcome->ending, Ending::kTimedOut);
  EXPECT_EQ(r.outcome->signal, SIGKILL);
}

TEST_F(ProcessRunnerTest, DeadlineSigtermIsEnoughForAChildThatDoesNotTrapIt) {
  Report r;
  RunCallbacks callbacks = record_into(r);
  RunId id = 0;
  on_ready(r, callbacks, [&] { runner.set_deadline(id, std::chrono::milliseconds(1)); });
  // A long grace: SIGKILL would only come after a minute, so SIGTERM must have done it.
  id = runner.start(ready_then_wait("", std::chrono::minutes(5)), std::move(callbacks));
  ASSERT_TRUE(drive_until(io, [&] { return r.outcome.has_value(); }));
  EXPECT_EQ(r.outcome->ending, Ending::kTimedOut);
  EXPECT_EQ(r.outcome->signal, SIGTERM);
}

TEST_F(ProcessRunnerTest, CancelEndsTheRunAsCancelled) {
  Report r;
  RunCallbacks callbacks = record_into(r);
  RunId id = 0;
  on_ready(r, callbacks, [&] { runner.cancel(id); });
  id = runner.start(ready_then_wait("", std::chrono::minutes(5)), std::move(callbacks));
  ASSERT_TRUE(drive_until(io, [&] { return r.outcome.has_value(); }));
  EXPECT_EQ(r.outcome->ending, Ending::kCancelled);
  EXPECT_EQ(r.done_calls, 1);
  runner.cancel(id);       // finished: a no-op
  runner.cancel(id + 99);  // unknown: a no-op
  io.poll();
  EXPECT_EQ(r.done_calls, 1);
}

TEST_F(ProcessRunnerTest, TerminateAllEndsEveryRunAsShutdown) {
  constexpr int kCount = 5;
  std::vector<Report> reports(kCount);
  int ready = 0;
  for (auto& r : reports) {
    RunCallbacks callbacks = record_into(r);
    on_ready(r, callbacks, [&] {
      if (++ready == kCount) runner.terminate_all(std::chrono::milliseconds(100));
    });
    runner.start(ready_then_wait("trap '' TERM; ", std::chrono::minutes(5)), std::move(callbacks));
  }
  ASSERT_TRUE(drive_until(io, [&] {
    for (auto& r : reports)
      if (!r.outcome) return false;
    return true;
  }));
  for (auto& r : reports) {
    EXPECT_EQ(r.outcome->ending, Ending::kShutdown);
    EXPECT_EQ(r.outcome->signal, SIGKILL);  // its grace, not the run's five minutes
    EXPECT_EQ(r.done_calls, 1);
  }
}

TEST_F(ProcessRunnerTest, PassesFd3Fd5AndTheChannel) {
  Pipe payload = make_pipe();
  ASSERT_EQ(::write(payload.write.fd, "three\n", 6), 6);
  payload.write.reset();
  FdGuard extra = make_payload_file("five\n");
  LaunchSpec spec =
      bash("read -r a <&3; read -r b <&5; echo \"$a $b\"; echo one >&4; printf 'two\\nthree' >&4");
  spec.fd3 = payload.read.release();
  spec.fd5 = extra.release();
  spec.channel = true;
  Report r = run(spec);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->stdout_head, "three five\n");
  EXPECT_EQ(r.channel, (std::vector<std::string>{"one", "two"}));  // unterminated: dropped
}

// Descriptor numbers the child holds, seen from inside (stat does not open anything).
constexpr const char* kListFds =
    "for fd in $(seq 0 1023); do [[ -e /proc/$$/fd/$fd ]] && printf '%s ' $fd; done; true";

TEST_F(ProcessRunnerTest, NoDescriptorOfTheHostReachesAChild) {
  // Opened after the runner was built and without close-on-exec, as a careless library
  // would: the child must still not get it.
  FdGuard stray(::open("/dev/null", O_RDONLY));
  ASSERT_GE(stray.fd, 0);
  Report plain = run(bash(kListFds));
  ASSERT_TRUE(plain.outcome);
  EXPECT_EQ(plain.outcome->stdout_head, "0 1 2 ");

  Pipe payload = make_pipe();
  LaunchSpec spec = bash(kListFds);
  spec.fd3 = payload.read.release();
  spec.fd5 = make_payload_file("x").release();
  spec.channel = true;
  Report full = run(spec);
  ASSERT_TRUE(full.outcome);
  EXPECT_EQ(full.outcome->stdout_head, "0 1 2 3 4 5 ");
}

TEST_F(ProcessRunnerTest, ChannelLinesAreBoundedPerRunAndTheDropIsSaid) {
  Limits limits;
  limits.max_channel = 1000;
  // 100 lines of 100 bytes (with the newline): 10 fit.
  LaunchSpec spec =
      bash("line=$(printf 'x%.0s' $(seq 1 99)); for i in $(seq 1 100); do echo \"$line\" >&4; done",
           limits);
  spec.channel = true;
  Report r = run(spec);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kExited);
  EXPECT_EQ(r.channel.size(), 10u);
  ASSERT_EQ(r.stderr_lines.size(), 1u);
  EXPECT_NE(r.stderr_lines[0].find("90 side-channel lines (9000 bytes)"), std::string::npos)
      << r.stderr_lines[0];
}

TEST_F(ProcessRunnerTest, TheDefaultChannelBoundIsOneMebibyte) {
  EXPECT_EQ(Limits{}.max_channel, std::size_t{1} << 20);
}

TEST_F(ProcessRunnerTest, AProgramThatCannotBeExecutedFailsToStart) {
  LaunchSpec spec;
  spec.argv = {"/nonexistent/program"};
  Report r = run(spec);
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kFailedToStart);
  EXPECT_FALSE(r.outcome->start_error.empty());
}

TEST_F(ProcessRunnerTest, TheLargestCpuLimitDoesNotOverflowIntoARefusedOne) {
  Limits limits;
  limits.cpu_seconds = ~std::uint64_t{0};
  Report r = run(bash("echo ok", limits));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kExited) << r.outcome->start_error;
  EXPECT_EQ(r.outcome->stdout_head, "ok\n");
}

}  // namespace
}  // namespace mcpsh::execution

namespace mcpsh::execution {
namespace {

TEST_F(ProcessRunnerTest, ABusyLoopPastItsCpuLimitIsReportedAsSuch) {
  Limits limits;
  limits.cpu_seconds = 1;
  Report r = run(bash("while :; do :; done", limits));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->ending, Ending::kSignaled) << describe_ending(*r.outcome);
  EXPECT_EQ(r.outcome->signal, SIGXCPU);
  EXPECT_TRUE(r.outcome->cpu_limit_hit) << r.outcome->cpu_time.count() << " ms of CPU";
}

TEST_F(ProcessRunnerTest, ASigxcpuWellUnderTheCpuLimitIsNotTheLimit) {
  Limits limits;
  limits.cpu_seconds = 10;
  Report r = run(bash("kill -XCPU $$", limits));
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->signal, SIGXCPU);
  EXPECT_FALSE(r.outcome->cpu_limit_hit);
}

}  // namespace
}  // namespace mcpsh::execution
