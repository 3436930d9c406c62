#include "transport/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "transport/line_framer.h"

namespace mcpsh::transport {

struct LineReader::Shared {
  int fd;
  std::size_t max_line;
  Post post;
  LineEvents events;
  ReaderBounds bounds;

  std::mutex mutex;
  std::condition_variable changed;
  bool paused = false;
  std::size_t pending_lines = 0;  // posted, not yet handled
  std::size_t pending_bytes = 0;

  bool may_post() const {
    return !paused &&
           (pending_lines == 0 || (pending_lines < bounds.lines && pending_bytes < bounds.bytes));
  }

  void wait_until_unpaused() {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return !paused; });
  }

  // Reader thread: blocks until the event may be posted, then counts it as pending.
  void admit(std::size_t bytes) {
    std::unique_lock lock(mutex);
    changed.wait(lock, [&] { return may_post(); });
    ++pending_lines;
    pending_bytes += bytes;
  }

  // Consumer thread, after handling an event.
  void handled(std::size_t bytes) {
    {
      std::lock_guard lock(mutex);
      --pending_lines;
      pending_bytes -= bytes;
    }
    changed.notify_all();
  }
};

LineReader::LineReader(int fd, std::size_t max_line, Post post, LineEvents events,
                       ReaderBounds bounds)
    : shared_(std::make_shared<Shared>()) {
  shared_->fd = fd;
  shared_->max_line = max_line;
  shared_->post = std::move(post);
  shared_->events = std::move(events);
  shared_->bounds = bounds;
}

LineReader::~LineReader() = default;

void LineReader::set_paused(bool paused) {
  {
    std::lock_guard lock(shared_->mutex);
    shared_->paused = paused;
  }
  shared_->changed.notify_all();
}

void LineReader::start() {
  // The thread owns a reference to Shared, so it may outlive this object safely.
  std::thread([shared = shared_] {
    LineFramer framer(shared->max_line);
    std::vector<char> buffer(1 << 16);
    auto deliver = [&](LineFramer::Event event) {
      if (event.oversized_size) {
        shared->admit(0);
        shared->post([shared, size = event.oversized_size] {
          shared->events.on_oversized(size);
          shared->handled(0);
        });
      } else {
        const std::size_t bytes = event.line.size();
        shared->admit(bytes);
        shared->post([shared, bytes, line = std::move(event.line)]() mutable {
          shared->events.on_line(std::move(line));
          shared->handled(bytes);
        });
      }
    };
    for (;;) {
      shared->wait_until_unpaused();
      ssize_t n = ::read(shared->fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      framer.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), deliver);
    }
    framer.finish(deliver);
    shared->post([shared] { shared->events.on_eof(); });
  }).detach();
}

}  // namespace mcpsh::transport
