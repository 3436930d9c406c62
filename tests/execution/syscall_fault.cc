#include "syscall_fault.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

namespace mcpsh::execution::testing {

bool install_syscall_fault(const SyscallFault& fault, Threads threads) {
#if defined(__x86_64__)
  constexpr std::uint32_t arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
  constexpr std::uint32_t arch = AUDIT_ARCH_AARCH64;
#else
  return false;
#endif
  // Every test jumps to "allow" when it does not match; "allow" is the last instruction.
  std::vector<sock_filter> program;
  std::vector<std::size_t> to_allow;  // instructions whose false branch goes to allow
  auto check = [&](std::uint32_t offset, std::uint32_t value) {
    program.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
    to_allow.push_back(program.size());
    program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, value, 0, 0));
  };
  check(offsetof(seccomp_data, arch), arch);
  check(offsetof(seccomp_data, nr), static_cast<std::uint32_t>(fault.number));
  for (const auto& [index, value] : fault.args)
    check(static_cast<std::uint32_t>(offsetof(seccomp_data, args) + 8 * index), value);
  program.push_back(BPF_STMT(
      BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (static_cast<std::uint32_t>(fault.error) & 0xffff)));
  program.push_back(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
  const std::size_t allow = program.size() - 1;
  for (std::size_t at : to_allow) program[at].jf = static_cast<std::uint8_t>(allow - at - 1);

  sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
  const unsigned flags = threads == Threads::kAll ? SECCOMP_FILTER_FLAG_TSYNC : 0;
  return ::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &fprog) == 0;
}

}  // namespace mcpsh::execution::testing
