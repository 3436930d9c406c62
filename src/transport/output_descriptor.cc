#include "transport/output_descriptor.h"

#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <optional>

namespace mcpsh::transport {

namespace {

enum class Ready { kWritable, kPeerGone, kWokenUp };

// Waits until `fd` has room, its reader is gone, or `wake_fd` is readable (which wins).
Ready wait_writable(int fd, int wake_fd) {
  for (;;) {
    pollfd p[2] = {{wake_fd, POLLIN, 0}, {fd, POLLOUT, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return Ready::kPeerGone;  // EINVAL/ENOMEM: nothing sensible left to wait for
    }
    if (p[0].revents & POLLIN) return Ready::kWokenUp;
    if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL)) return Ready::kPeerGone;
    if (p[1].revents & POLLOUT) return Ready::kWritable;
  }
}

// Whether this kernel takes RWF_NOWAIT for a pipe write (Linux 6.4 and later; earlier kernels
// refuse it with EOPNOTSUPP); cleared at the first refusal, for the whole process.
std::atomic<bool> pipe_nowait{true};

// A pipe write that takes as much as fits and never blocks, without touching the flags of
// the open file (RWF_NOWAIT). All of `size` in one call when the pipe has the room: a
// message cut into PIPE_BUF pieces wakes the reader once per piece, and each wake-up on
// our CPU preempts this thread and puts the rest of the message behind whatever else runs
// there. nullopt: the kernel does not know the flag for pipes.
std::optional<ssize_t> write_pipe_nowait(int fd, const char* data, std::size_t size) {
  if (!pipe_nowait.load(std::memory_order_relaxed)) return std::nullopt;
  iovec piece{const_cast<char*>(data), size};
  const ssize_t n = ::pwritev2(fd, &piece, 1, -1, RWF_NOWAIT);
  if (n < 0 && (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS)) {
    pipe_nowait.store(false, std::memory_order_relaxed);
    return std::nullopt;
  }
  return n;
}

// The raw result (bytes, or -1 and errno) of a write that takes what fits and cannot wait:
// send(MSG_DONTWAIT) to a socket, RWF_NOWAIT to a pipe. nullopt when there is none for this
// descriptor (kPipeInPieces, kOther, a kernel without RWF_NOWAIT for pipes).
std::optional<ssize_t> write_without_waiting(int fd, OutputKind kind, const char* data,
                                             std::size_t size) {
  if (kind == OutputKind::kSocket) return ::send(fd, data, size, MSG_DONTWAIT | MSG_NOSIGNAL);
  if (kind == OutputKind::kPipe) return write_pipe_nowait(fd, data, size);
  return std::nullopt;
}

// One write that does not block on a full pipe or socket: >0 bytes, 0 = no room (EAGAIN),
// -1 = the peer is gone or the descriptor failed.
ssize_t write_some(int fd, OutputKind kind, const char* data, std::size_t size) {
  for (;;) {
    ssize_t n;
    if (auto quick = write_without_waiting(fd, kind, data, size))
      n = *quick;
    else if (kind == OutputKind::kOther)
      n = ::write(fd, data, size);
    else  // a pipe; poll reported room for at least one page: PIPE_BUF bytes cannot block
      n = ::write(fd, data, std::min<std::size_t>(size, PIPE_BUF));
    if (n >= 0) return n;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    return -1;
  }
}

}  // namespace

std::optional<std::size_t> write_now(int fd, OutputKind kind, std::string_view data) {
  for (;;) {
    const auto n = write_without_waiting(fd, kind, data.data(), data.size());
    if (!n) return std::nullopt;
    if (*n >= 0) return static_cast<std::size_t>(*n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    return std::nullopt;  // write_until_woken will meet the error and report it
  }
}

OutputKind output_kind(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return OutputKind::kOther;
  if (S_ISFIFO(st.st_mode)) return OutputKind::kPipe;
  if (S_ISSOCK(st.st_mode)) return OutputKind::kSocket;
  return OutputKind::kOther;
}

WriteEnd write_until_woken(int fd, OutputKind kind, std::string_view data, std::size_t& written,
                           int wake_fd) {
  while (written < data.size()) {
    // Regular files and /dev/null are always "ready"; a terminal may make write(2) wait, and
    // poll tells that apart too.
    switch (wait_writable(fd, wake_fd)) {
      case Ready::kWokenUp:
        return WriteEnd::kWokenUp;
      case Ready::kPeerGone:
        return WriteEnd::kPeerGone;
      case Ready::kWritable:
        break;
    }
    ssize_t n = write_some(fd, kind, data.data() + written, data.size() - written);
    if (n < 0) return WriteEnd::kPeerGone;
    written += static_cast<std::size_t>(n);
  }
  return WriteEnd::kDone;
}

bool wait_woken_or_peer_gone(int fd, OutputKind kind, int wake_fd) {
  // Events 0: only POLLERR/POLLHUP, which poll always reports. A regular file or terminal
  // never goes away in a way worth noticing while idle; a failed write will tell.
  const bool watch_peer = kind != OutputKind::kOther;
  for (;;) {
    pollfd p[2] = {{wake_fd, POLLIN, 0}, {watch_peer ? fd : -1, 0, 0}};
    if (::poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return true;
    }
    if (p[0].revents & POLLIN) return false;
    if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL)) return true;
  }
}

}  // namespace mcpsh::transport
