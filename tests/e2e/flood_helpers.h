#pragma once
// Flooding a host's stdin: a client that writes numbered lines as fast as the host takes
// them, through a non-blocking descriptor of its own, so the test can see when the host
// stops reading (backpressure) without blocking in write(2) itself.
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "host_process.h"

namespace mcpsh::testing {

// Opens another write end of the host's stdin pipe (/proc/<pid>/fd/0 reopens the pipe
// itself), non-blocking; the harness's own end stays as it is.
inline int open_host_stdin(pid_t pid) {
  int fd =
      ::open(("/proc/" + std::to_string(pid) + "/fd/0").c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open the host's stdin through /proc");
  return fd;
}

// ASan keeps freed memory in a quarantine of up to 256 MiB by default, which looks like
// growth to anyone measuring RSS; a small one keeps the measure about the host's own
// buffers. (A build without ASan ignores the variable.)
inline HostOptions small_quarantine() {
  HostOptions options;
  const char* inherited = std::getenv("ASAN_OPTIONS");
  std::string value = inherited && *inherited ? std::string(inherited) + ":" : "";
  options.env.emplace_back("ASAN_OPTIONS", value + "quarantine_size_mb=4");
  return options;
}

class Flooder {
 public:
  // line_for(n): line number n (from 1), without its '\n'.
  Flooder(int fd, std::function<std::string(std::uint64_t)> line_for)
      : fd_(fd), line_for_(std::move(line_for)) {}
  ~Flooder() { close(); }
  Flooder(const Flooder&) = delete;
  Flooder& operator=(const Flooder&) = delete;

  // Writes what the host takes now, or else waits up to `wait` for room and tries again.
  // Returns the bytes written (0 = the host took nothing for `wait`).
  std::size_t pump(std::chrono::milliseconds wait) {
    if (offset_ == batch_.size()) refill();
    for (int attempt = 0; attempt < 2; ++attempt) {
      ssize_t n = ::write(fd_, batch_.data() + offset_, batch_.size() - offset_);
      if (n > 0) {
        advance(static_cast<std::size_t>(n));
        return static_cast<std::size_t>(n);
      }
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        throw std::runtime_error("write to the host failed");
      if (attempt == 0) {
        pollfd p{fd_, POLLOUT, 0};
        ::poll(&p, 1, static_cast<int>(wait.count()));
      }
    }
    return 0;
  }

  // Completes the line in progress (waiting as long as it takes, up to `timeout`), so
  // every line started is whole. Returns false on timeout.
  bool finish_line(std::chrono::milliseconds timeout = 60s) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (line_offset_ != 0) {
      std::size_t end = batch_.find('\n', offset_) + 1;
      ssize_t n = ::write(fd_, batch_.data() + offset_, end - offset_);
      if (n > 0) {
        advance(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, 100);
    }
    return true;
  }

  // Writes one more line (blocking up to `timeout`); false if the host did not take it.
  bool send_line(const std::string& line, std::chrono::milliseconds timeout = 60s) {
    if (!finish_line(timeout)) return false;
    std::string bytes = line + "\n";
    std::size_t done = 0;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n > 0) {
        done += static_cast<std::size_t>(n);
        sent_ += static_cast<std::size_t>(n);
        continue;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, 100);
    }
    return true;
  }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  std::uint64_t bytes_sent() const { return sent_; }
  // Lines written whole (a line cut short by the pipe is not counted until finished).
  std::uint64_t lines_sent() const { return whole_lines_; }

 private:
  void refill() {
    batch_.clear();
    offset_ = 0;
    while (batch_.size() < (64u << 10)) batch_ += line_for_(++generated_) + "\n";
  }
  void advance(std::size_t n) {
    std::string_view written(batch_.data() + offset_, n);
    if (auto last = written.rfind('\n'); last != std::string_view::npos) {
      whole_lines_ += static_cast<std::uint64_t>(std::count(written.begin(), written.end(), '\n'));
      line_offset_ = n - last - 1;
    } else {
      line_offset_ += n;
    }
    offset_ += n;
    sent_ += n;
  }

  int fd_;
  std::function<std::string(std::uint64_t)> line_for_;
  std::string batch_;
  std::size_t offset_ = 0;
  std::size_t line_offset_ = 0;  // bytes of the current line already written
  std::uint64_t generated_ = 0, whole_lines_ = 0, sent_ = 0;
};

}  // namespace mcpsh::testing
