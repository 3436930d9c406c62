// Handlers the runner leaves on the io_context must be harmless once it is gone: these
// tests destroy it at awkward moments and then run the loop (ASan reports any use of the
// freed runner).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "runner_harness.h"

namespace mcpsh::execution {
namespace {

using testing::bash;
using testing::drive_until;
using testing::record_into;
using testing::Report;

// Runs what is left on the loop; the runner's signal set is gone, so it empties.
void run_leftovers(boost::asio::io_context& io) {
  io.restart();
  io.run_for(std::chrono::seconds(30));
}

// Whether every child the runner left is dead (reaping any it did not get to: a loaded
// machine may take longer than its bounded wait). A hang guard, not a timing assertion.
bool all_children_killed() {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (!testing::children_except_watchdogs().empty()) {
    if (std::chrono::steady_clock::now() > give_up) return false;
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    ::usleep(10'000);
  }
  return true;
}

TEST(RunnerLifetime, DestroyedWithRunsInFlightItsQueuedHandlersDoNothing) {
  boost::asio::io_context io;
  auto runner = std::make_unique<ProcessRunner>(io);
  std::vector<Report> reports(3);
  Limits limits;
  limits.timeout = std::chrono::milliseconds(300);  // fires after the runner is gone
  for (auto& r : reports) {
    LaunchSpec spec = bash("echo started; exec sleep 100", limits);
    spec.channel = true;
    runner->start(spec, record_into(r));
  }
  io.poll();
  runner.reset();
  run_leftovers(io);
  for (auto& r : reports) EXPECT_EQ(r.done_calls, 0);  // destroyed unused, as documented
  EXPECT_TRUE(all_children_killed());
}

TEST(RunnerLifetime, DestroyedBeforeItsChildrenExistNothingOutlivesIt) {
  // The spawner thread may be forking, or have forked children the loop never claimed,
  // when the runner goes: they are killed like the rest, and their reports do nothing.
  for (int i = 0; i < 5; ++i) {
    boost::asio::io_context io;
    auto runner = std::make_unique<ProcessRunner>(io);
    std::vector<Report> reports(4);
    for (auto& r : reports) runner->start(bash("exec sleep 100"), record_into(r));
    if (i % 2) std::this_thread::sleep_for(std::chrono::milliseconds(50));  // forked by now
    runner.reset();
    run_leftovers(io);
    for (auto& r : reports) EXPECT_EQ(r.done_calls, 0);
    EXPECT_TRUE(all_children_killed());
  }
}

TEST(RunnerLifetime, DestroyedRightAfterARunEndedItsLateSweepDoesNothing) {
  boost::asio::io_context io;
  auto runner = std::make_unique<ProcessRunner>(io);
  Report r;
  runner->start(bash("true"), record_into(r));
  ASSERT_TRUE(drive_until(io, [&] { return r.outcome.has_value(); }));
  runner.reset();  // the late escapee sweep is still armed
  run_leftovers(io);
  EXPECT_EQ(r.done_calls, 1);
}

TEST(RunnerLifetime, AnOnDoneThatDestroysTheRunnerIsSafe) {
  // As a one-shot verb does: the last result ends the program's use of the runner.
  for (int i = 0; i < 20; ++i) {
    boost::asio::io_context io;
    auto runner = std::make_unique<ProcessRunner>(io);
    std::vector<Report> reports(3);
    int done = 0;
    for (auto& r : reports) {
      RunCallbacks callbacks = record_into(r);
      callbacks.on_done = [&, inner = std::move(callbacks.on_done)](Outcome o) {
        inner(std::move(o));
        if (++done == 1) runner.reset();
      };
      runner->start(bash("echo x; echo y >&2"), std::move(callbacks));
    }
    ASSERT_TRUE(drive_until(io, [&] { return !runner; }));
    run_leftovers(io);
    EXPECT_EQ(done, 1);  // the other two were in flight when it went: no on_done
  }
}

}  // namespace
}  // namespace mcpsh::execution
