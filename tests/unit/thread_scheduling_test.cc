// YieldingScope: the thread that makes one yields its CPU on a timer while the scope lives,
// and not after it (adr/0025). Counted, not timed: the test waits for the yields to happen
// (at most a few seconds on a busy machine), never for them to happen within a time.
#include "execution/thread_scheduling.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace mcpsh::execution {
namespace {

using Clock = std::chrono::steady_clock;

// Busy work (no system call of its own) until `yields` more yields, or until the thread's
// scope stopped yielding (a yield kept it off its CPU for over a tick: a busy machine), or
// `limit` passed.
std::uint64_t spin_until_yields(std::uint64_t yields, Clock::duration limit) {
  const std::uint64_t start = YieldingScope::yields_on_this_thread();
  const auto until = Clock::now() + limit;
  while (YieldingScope::yields_on_this_thread() - start < yields && Clock::now() < until &&
         YieldingScope::yielding_on_this_thread()) {
  }
  return YieldingScope::yields_on_this_thread() - start;
}

// The calling thread on CPU `cpu` only.
void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  ASSERT_EQ(::sched_setaffinity(0, sizeof set, &set), 0);
}

TEST(YieldingScope, AThreadYieldsWhileItsScopeLivesAndNotAfter) {
  std::uint64_t during = 0, after = 0;
  bool still = false;
  std::thread worker([&] {
    {
      const YieldingScope scope(std::chrono::microseconds(200));
      during = spin_until_yields(50, std::chrono::seconds(10));
      still = YieldingScope::yielding_on_this_thread();
    }
    const std::uint64_t ended = YieldingScope::yields_on_this_thread();
    spin_until_yields(1, std::chrono::milliseconds(50));
    after = YieldingScope::yields_on_this_thread() - ended;
  });
  worker.join();
  // On a busy machine the scope may have stopped early: then after one yield at least.
  EXPECT_GE(during, still ? 50u : 1u) << "the timer's signal made the thread yield";
  EXPECT_EQ(after, 0u) << "no yield once the scope ended";
}

TEST(YieldingScope, YieldsAreCountedPerThread) {
  std::uint64_t paced = 0, other = 0;
  std::thread worker([&] {
    const YieldingScope scope(std::chrono::microseconds(200));
    paced = spin_until_yields(20, std::chrono::seconds(10));
    if (!YieldingScope::yielding_on_this_thread()) paced = 20;  // a busy machine: not this test's
  });
  std::thread bystander([&] {  // busy as long, without a scope of its own
    const auto until = Clock::now() + std::chrono::milliseconds(100);
    while (Clock::now() < until) {
    }
    other = YieldingScope::yields_on_this_thread();
  });
  worker.join();
  bystander.join();
  EXPECT_GE(paced, 20u);
  EXPECT_EQ(other, 0u) << "the signal goes to the thread that made the scope only";
}

TEST(YieldingScope, BlockingSystemCallsGoOnAcrossTheSignals) {
  // The work of a scope may block in a read: SA_RESTART restarts it after each signal, and
  // the handler leaves errno as it was.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ssize_t got = -2;
  int read_errno = 0, spin_errno = -1;
  std::thread worker([&] {
    const YieldingScope scope(std::chrono::microseconds(200));
    char byte = 0;
    got = ::read(fds[0], &byte, 1);
    read_errno = got < 0 ? errno : 0;
    errno = 0;
    spin_until_yields(5, std::chrono::seconds(10));
    spin_errno = errno;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // ~150 signals meanwhile
  ASSERT_EQ(::write(fds[1], "x", 1), 1);
  worker.join();
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_EQ(got, 1) << "read failed: " << std::strerror(read_errno);
  EXPECT_EQ(spin_errno, 0) << "the handler restores errno";
}

TEST(YieldingScope, AYieldThatKeptTheThreadOffItsCpuForATickIsTheLast) {
  // Three busy threads and the yielding one (at nice +10, as the reload's) on one CPU: after
  // a yield the others run a tick each before it gets the CPU back, so it stops yielding
  // (yields would add up there and starve it) and its work goes on without.
  std::atomic<bool> stop{false};
  std::vector<std::thread> busy;
  for (int i = 0; i < 3; ++i)
    busy.emplace_back([&] {
      pin_to(0);
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  bool stopped = false;
  std::uint64_t yields = 0;
  std::thread worker([&] {
    pin_to(0);
    ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 10);
    const YieldingScope scope(std::chrono::microseconds(200));
    yields = spin_until_yields(1'000'000, std::chrono::seconds(20));
    stopped = !YieldingScope::yielding_on_this_thread();
  });
  worker.join();
  stop = true;
  for (auto& t : busy) t.join();
  EXPECT_TRUE(stopped) << "still yielding after " << yields << " yields";
  EXPECT_GE(yields, 1u);
}

TEST(YieldingScope, ANonPositivePeriodMakesNoTimer) {
  std::uint64_t yields = 0;
  std::thread worker([&] {
    const YieldingScope scope(std::chrono::microseconds(0));
    yields = spin_until_yields(1, std::chrono::milliseconds(20));
  });
  worker.join();
  EXPECT_EQ(yields, 0u);
}

}  // namespace
}  // namespace mcpsh::execution
