#include "transport/line_reader.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string_view>
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

// Reading on the loop: every member runs on the loop's thread, except `paused`.
struct LineReader::OnLoop : std::enable_shared_from_this<OnLoop> {
  OnLoop(boost::asio::io_context& io, int own_fd, std::shared_ptr<Shared> shared)
      : stream(io, own_fd), shared(std::move(shared)), framer(this->shared->max_line) {}

  boost::asio::posix::stream_descriptor stream;  // our own open file of the pipe
  std::shared_ptr<Shared> shared;                // fd, max_line, events
  LineFramer framer;
  std::vector<char> buffer = std::vector<char>(1 << 16);
  std::deque<LineFramer::Event> framed;  // read, not handed over yet (paused meanwhile)
  std::atomic<bool> paused{false};
  bool reading = false;  // a read is pending
  bool ended = false;    // end of input (or a read error) was read
  bool closed = false;   // the LineReader is gone: nothing more is handed over

  // Hands over what is framed, unless paused; then reads more, or reports the end. A
  // handler may pause us (set_paused) in the middle of a batch: the rest waits.
  void pump() {
    while (!framed.empty()) {
      if (closed || paused) return;
      LineFramer::Event event = std::move(framed.front());
      framed.pop_front();
      if (event.oversized_size)
        shared->events.on_oversized(event.oversized_size);
      else
        shared->events.on_line(std::move(event.line));
    }
    if (closed || paused || reading) return;
    if (ended) {
      closed = true;
      shared->events.on_eof();
      return;
    }
    reading = true;
    stream.async_read_some(
        boost::asio::buffer(buffer),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          self->reading = false;
          if (self->closed) return;
          auto keep = [&](LineFramer::Event event) { self->framed.push_back(std::move(event)); };
          self->framer.feed(std::string_view(self->buffer.data(), n), keep);
          if (ec) {  // end of input, or an error that ends it as read(2) failing does
            self->framer.finish(keep);
            self->ended = true;
          }
          self->pump();
        });
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

LineReader::~LineReader() {
  if (!on_loop_) return;
  on_loop_->closed = true;
  boost::system::error_code ignored;
  on_loop_->stream.close(ignored);  // cancels a pending read; closes only our own open file
}

void LineReader::set_paused(bool paused) {
  if (on_loop_) {
    on_loop_->paused = paused;
    if (!paused) boost::asio::post(on_loop_->stream.get_executor(), [l = on_loop_] { l->pump(); });
    return;
  }
  {
    std::lock_guard lock(shared_->mutex);
    shared_->paused = paused;
  }
  shared_->changed.notify_all();
}

void LineReader::start() {
  // The thread owns a reference to Shared, so it may outlive this object safely.
  std::thread([shared = shared_] {
    ::pthread_setname_np(::pthread_self(), "mcpsh-reader");  // as top -H and perf show it
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

bool LineReader::start(boost::asio::io_context& io) {
  struct stat given {};
  if (::fstat(shared_->fd, &given) != 0 || !S_ISFIFO(given.st_mode)) {
    start();
    return false;
  }
  // The same pipe through an open file of our own, which may be non-blocking; refused
  // without /proc, or for a pipe of another user's.
  const std::string path = "/proc/self/fd/" + std::to_string(shared_->fd);
  const int own = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat opened {};
  if (own < 0 || ::fstat(own, &opened) != 0 || opened.st_dev != given.st_dev ||
      opened.st_ino != given.st_ino) {
    if (own >= 0) ::close(own);
    start();
    return false;
  }
  try {
    on_loop_ = std::make_shared<OnLoop>(io, own, shared_);
    std::lock_guard lock(shared_->mutex);
    on_loop_->paused = shared_->paused;  // set_paused() before start()
  } catch (const std::exception&) {
    // epoll refused it (a boost::system::system_error)
    ::close(own);
    start();
    return false;
  }
  boost::asio::post(io, [l = on_loop_] { l->pump(); });
  return true;
}

}  // namespace mcpsh::transport
