#include "execution/thread_scheduling.h"

#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace mcpsh::execution {

namespace {

// struct sched_attr (linux/sched/types.h, first version: 48 bytes), which glibc 2.36 does
// not declare.
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t policy;
  std::uint64_t flags;
  std::int32_t nice;
  std::uint32_t priority;
  std::uint64_t runtime;  // for SCHED_OTHER and SCHED_BATCH: the slice, in ns (0: default)
  std::uint64_t deadline;
  std::uint64_t period;
};
static_assert(sizeof(SchedAttr) == 48);

constexpr std::uint64_t kKeepPolicy = 0x08;     // SCHED_FLAG_KEEP_POLICY
constexpr std::uint64_t kShortSlice = 100'000;  // the least the kernel accepts (0.1 ms)

// Sets the calling thread's slice, keeping its policy and nice value (read first: the call
// sets both).
void set_slice(std::uint64_t nanoseconds) {
  SchedAttr attr{};
  if (::syscall(SYS_sched_getattr, 0, &attr, sizeof attr, 0) != 0) return;
  attr.size = sizeof attr;
  attr.flags = kKeepPolicy;
  attr.runtime = nanoseconds;
  attr.deadline = attr.period = 0;
  ::syscall(SYS_sched_setattr, 0, &attr, 0);
}

// The signal of YieldingScope's timers: a real-time one, which nothing else in the host
// uses; its handler stays installed once set (a signal sent just before a timer was deleted
// then finds its scope gone and does nothing).
int yield_signal() { return SIGRTMIN + 7; }

// Lock-free, so the handler may touch it.
thread_local std::atomic<std::uint64_t> yields{0};

std::int64_t monotonic_ns() {  // clock_gettime is async-signal-safe
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

// sched_yield() gives the CPU to a thread waiting on it: EEVDF charges the yielding thread
// the rest of its slice, so the waiting one goes first, and goes on going first while the
// yields go on. On a busy machine those charges add up: a reload with eight busy loops on
// 2 CPUs got 0.3% of a CPU instead of its share, and stalled. So a yield that kept the
// thread off its CPU longer than a tick (4 ms at HZ=250: others want the CPU anyway, and the
// kernel interleaves them already) is the scope's last.
constexpr std::int64_t kBusyYieldNs = 4'000'000;
thread_local std::atomic<bool> yielding{false};  // lock-free: the handler writes it

void on_yield_signal(int) {
  if (!yielding.load(std::memory_order_relaxed)) return;
  const int saved = errno;
  const std::int64_t before = monotonic_ns();
  ::sched_yield();
  if (monotonic_ns() - before > kBusyYieldNs) yielding.store(false, std::memory_order_relaxed);
  yields.fetch_add(1, std::memory_order_relaxed);
  errno = saved;
}

bool install_yield_handler() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_yield_signal;
    action.sa_flags = SA_RESTART;  // a system call of the work goes on after the yield
    ::sigemptyset(&action.sa_mask);
    return ::sigaction(yield_signal(), &action, nullptr) == 0;
  }();
  return installed;
}

}  // namespace

YieldingScope::YieldingScope(std::chrono::microseconds every) {
  if (every.count() <= 0 || !install_yield_handler()) return;
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = yield_signal();
  event._sigev_un._tid = ::gettid();
  timer_t timer;
  if (::timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) return;
  itimerspec period{};
  period.it_interval.tv_sec = period.it_value.tv_sec = every.count() / 1'000'000;
  period.it_interval.tv_nsec = period.it_value.tv_nsec = (every.count() % 1'000'000) * 1000;
  if (::timer_settime(timer, 0, &period, nullptr) != 0) {
    ::timer_delete(timer);
    return;
  }
  timer_ = timer;
  armed_ = true;
  yielding.store(true, std::memory_order_relaxed);
}

YieldingScope::~YieldingScope() {
  if (!armed_) return;
  yielding.store(false, std::memory_order_relaxed);  // a late signal finds nothing to do
  ::timer_delete(static_cast<timer_t>(timer_));
}

std::uint64_t YieldingScope::yields_on_this_thread() {
  return yields.load(std::memory_order_relaxed);
}

bool YieldingScope::yielding_on_this_thread() { return yielding.load(std::memory_order_relaxed); }

void use_short_slices() { set_slice(kShortSlice); }

void use_default_slices() { set_slice(0); }

}  // namespace mcpsh::execution
