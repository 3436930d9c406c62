#include "execution/fd_guard.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace mcpsh::execution {

namespace {
std::runtime_error failure(const char* what) {
  return std::runtime_error(std::string(what) + ": " + std::strerror(errno));
}
}  // namespace

void FdGuard::reset() {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

Pipe make_pipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw failure("pipe2");
  return Pipe{FdGuard(fds[0]), FdGuard(fds[1])};
}

FdGuard open_dev_null() {
  FdGuard fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (fd.fd < 0) throw failure("open(/dev/null)");
  return fd;
}

FdGuard lift(int fd, int floor) {
  FdGuard lifted(::fcntl(fd, F_DUPFD_CLOEXEC, floor));
  if (lifted.fd < 0) throw failure("fcntl(F_DUPFD_CLOEXEC)");
  return lifted;
}

void mark_all_close_on_exec(int from) {
  DIR* dir = ::opendir("/proc/self/fd");
  if (!dir) return;
  const int own = ::dirfd(dir);
  while (auto* e = ::readdir(dir)) {
    char* end = nullptr;
    long fd = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || end == e->d_name || fd < from || fd == own) continue;
    int flags = ::fcntl(static_cast<int>(fd), F_GETFD);
    if (flags >= 0) ::fcntl(static_cast<int>(fd), F_SETFD, flags | FD_CLOEXEC);
  }
  ::closedir(dir);
}

}  // namespace mcpsh::execution
