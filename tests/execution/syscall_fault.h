#pragma once
// Makes one system call fail with a chosen errno in this process (or one of its threads)
// and the processes it forks from now on (a seccomp filter; irreversible, so only in a
// forked test host). The kernel then really refuses the call, and the code under test
// takes its real error path; this is how an older kernel (ENOSYS) or a refused setting
// (EPERM) is reproduced.
#include <cstdint>
#include <utility>
#include <vector>

namespace mcpsh::execution::testing {

struct SyscallFault {
  long number;  // SYS_...
  int error;    // errno to return
  // Only when these arguments (index, value; compared on their low 32 bits) match.
  std::vector<std::pair<int, std::uint32_t>> args;
};

// Every thread of the process (the runner forks on a thread of its own), or only the
// calling one.
enum class Threads { kAll, kCallingOnly };

// False when seccomp filters are not available here (the test should skip).
bool install_syscall_fault(const SyscallFault& fault, Threads threads = Threads::kAll);

}  // namespace mcpsh::execution::testing
