#pragma once
// How the host's own threads are scheduled against each other and against the processes it
// starts (adr/0024). Linux keeps scheduling attributes per thread; a thread made later and
// a process started later inherit those of the thread that made it. All best effort: a
// kernel that refuses leaves the thread as it was, and nothing else depends on it.

#include <chrono>
#include <cstdint>

namespace mcpsh::execution {

// The calling thread runs in scheduler slices of 0.1 ms instead of the kernel's default
// (which grows with the CPUs: 1.4 ms on 2): when it wakes for a request it goes ahead of a
// task that has run for longer, and preempts it at once (EEVDF, Linux 6.12 and later; an
// older kernel ignores the request). For the threads a request passes through: the event loop,
// and the line reader and writer threads it makes. Policy and nice value are kept.
void use_short_slices();

// The calling thread goes back to the kernel's default slice: a thread that starts processes
// (tools, probes) calls it first, so that what it starts competes as any process does.
void use_default_slices();

// Background work in pieces: while a YieldingScope lives, the thread that made it gives up
// its CPU (sched_yield) every `every` of wall time, wherever its code is (a POSIX timer
// signals that thread; the handler yields). A thread the kernel queued behind it on its CPU
// (a request's, the client's) then runs within about that time, where the kernel alone may
// leave it waiting for the rest of the background thread's slice or for its next tick (4 ms
// at HZ=250), even at nice +10 (adr/0025). When nothing waits, the yield returns at once.
// A yield that kept the thread off its CPU for more than a tick (a busy machine, where the
// kernel interleaves it with others already, and where yields would starve it) is the
// scope's last. One per thread at a time, made and destroyed on it. Best effort: when no
// timer can be had, the work runs as it would without.
class YieldingScope {
 public:
  explicit YieldingScope(std::chrono::microseconds every);
  ~YieldingScope();
  YieldingScope(const YieldingScope&) = delete;
  YieldingScope& operator=(const YieldingScope&) = delete;

  // How many times the calling thread has yielded so far, and whether its scope yields
  // still (for tests).
  static std::uint64_t yields_on_this_thread();
  static bool yielding_on_this_thread();

 private:
  void* timer_ = nullptr;  // the timer_t (the first one a process makes is null)
  bool armed_ = false;
};

}  // namespace mcpsh::execution
