#pragma once
// Owned file descriptors and the pipes and files a child is given. Every descriptor made
// here is close-on-exec from birth: nothing of ours leaks into a child unless it is
// dup2'ed onto one of the child's standard numbers between fork and exec.
#include <utility>

namespace mcpsh::execution {

// Closes its descriptor when destroyed (unless released).
struct FdGuard {
  int fd = -1;
  FdGuard() = default;
  explicit FdGuard(int f) : fd(f) {}
  FdGuard(FdGuard&& o) noexcept : fd(std::exchange(o.fd, -1)) {}
  FdGuard& operator=(FdGuard&& o) noexcept {
    if (this != &o) {
      reset();
      fd = std::exchange(o.fd, -1);
    }
    return *this;
  }
  FdGuard(const FdGuard&) = delete;
  FdGuard& operator=(const FdGuard&) = delete;
  ~FdGuard() { reset(); }
  void reset();
  int release() { return std::exchange(fd, -1); }
};

struct Pipe {
  FdGuard read, write;
};

// All of these throw std::runtime_error naming the failed call.
Pipe make_pipe();         // pipe2(O_CLOEXEC)
FdGuard open_dev_null();  // O_RDONLY | O_CLOEXEC
// A close-on-exec duplicate of fd numbered >= floor (so that dup2 onto 0..4 in the child
// can never overwrite another of the child's descriptors).
FdGuard lift(int fd, int floor);

// Sets close-on-exec on every open descriptor >= from: those the host inherited from its
// own parent (clients are not always careful) must not reach the tools.
void mark_all_close_on_exec(int from);

}  // namespace mcpsh::execution
