#pragma once
// Straight to the kernel, for code that runs between fork and exec (and in the watchdog):
// the host may have other threads, so only async-signal-safe calls are allowed there, and
// the sanitizers' interceptors (which may take locks or allocate) must be bypassed too.
// errno is set as by the libc wrappers (-1 and errno on failure).
#include <sys/syscall.h>
#include <unistd.h>

namespace mcpsh::execution {

inline long raw_syscall(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0) {
  return ::syscall(number, a, b, c, d, e);
}

}  // namespace mcpsh::execution
