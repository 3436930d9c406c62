#pragma once
// Real pipes and socket pairs for the transport's unit tests, closed on scope exit.
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

namespace mcpsh::transport {

struct TestPipe {
  int read_end = -1, write_end = -1;

  // `capacity`: F_SETPIPE_SZ (the kernel rounds it up to a page), 0 = the default 64 KiB.
  explicit TestPipe(int capacity = 0) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    read_end = fds[0];
    write_end = fds[1];
    if (capacity > 0 && ::fcntl(write_end, F_SETPIPE_SZ, capacity) < 0)
      throw std::runtime_error("F_SETPIPE_SZ");
  }
  ~TestPipe() {
    close_read();
    close_write();
  }
  TestPipe(const TestPipe&) = delete;
  TestPipe& operator=(const TestPipe&) = delete;

  void close_read() {
    if (read_end >= 0) ::close(read_end);
    read_end = -1;
  }
  void close_write() {
    if (write_end >= 0) ::close(write_end);
    write_end = -1;
  }
};

// Whether this kernel takes RWF_NOWAIT for pipe writes (Linux 6.4 and later); a scratch
// pipe asks it.
inline bool kernel_writes_pipes_nowait() {
  TestPipe pipe;
  char byte = 'x';
  iovec piece{&byte, 1};
  return ::pwritev2(pipe.write_end, &piece, 1, -1, RWF_NOWAIT) == 1;
}

struct TestSocketPair {
  int ours = -1, theirs = -1;
  TestSocketPair() {
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
      throw std::runtime_error("socketpair");
    ours = fds[0];
    theirs = fds[1];
  }
  ~TestSocketPair() {
    if (ours >= 0) ::close(ours);
    if (theirs >= 0) ::close(theirs);
  }
};

// Everything readable from `fd` until EOF (blocking).
inline std::string read_to_eof(int fd) {
  std::string all;
  char chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return all;
    all.append(chunk, static_cast<std::size_t>(n));
  }
}

// Reads exactly `size` bytes from `fd` (fewer only at EOF).
inline std::string read_exactly(int fd, std::size_t size) {
  std::string all;
  char chunk[65536];
  while (all.size() < size) {
    ssize_t n = ::read(fd, chunk, std::min(sizeof chunk, size - all.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    all.append(chunk, static_cast<std::size_t>(n));
  }
  return all;
}

}  // namespace mcpsh::transport
