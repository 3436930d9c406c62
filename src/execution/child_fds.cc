#include "execution/child_fds.h"

#include <fcntl.h>
#include <sys/resource.h>

#include <cerrno>
#include <climits>
#include <cstdint>

#include "execution/raw_syscall.h"

namespace mcpsh::execution {

namespace {

// The highest descriptor number this process can hold, plus one.
int descriptor_limit() {
  struct {
    std::uint64_t cur, max;
  } limit{};
  if (raw_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, reinterpret_cast<long>(&limit)) != 0)
    return 1 << 20;  // the kernel's default ceiling (fs.nr_open)
  return limit.cur > static_cast<std::uint64_t>(INT_MAX) ? INT_MAX : static_cast<int>(limit.cur);
}

bool kernel_lacks_it(int error) { return error == ENOSYS || error == EINVAL; }

}  // namespace

int close_all_from(int first) {
  if (raw_syscall(SYS_close_range, first, ~0U, 0) == 0) return 0;
  if (!kernel_lacks_it(errno)) return errno;
  const int end = descriptor_limit();
  for (int fd = first; fd < end; ++fd) raw_syscall(SYS_close, fd);  // EBADF: not open
  return 0;
}

int mark_cloexec_from(int first) {
  if (raw_syscall(SYS_close_range, first, ~0U, CLOSE_RANGE_CLOEXEC) == 0) return 0;
  if (!kernel_lacks_it(errno)) return errno;
  const int end = descriptor_limit();
  for (int fd = first; fd < end; ++fd) {
    const long flags = raw_syscall(SYS_fcntl, fd, F_GETFD);
    if (flags < 0) continue;  // not open
    if (!(flags & FD_CLOEXEC) && raw_syscall(SYS_fcntl, fd, F_SETFD, flags | FD_CLOEXEC) != 0)
      return errno;
  }
  return 0;
}

}  // namespace mcpsh::execution
