#include "transport/line_writer.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace mcpsh::transport {

namespace {
// How often an idle writer checks whether the reading end of a pipe went away.
constexpr int kIdlePollMs = 100;
}  // namespace

struct LineWriter::State {
  int fd;
  Post post;
  std::function<void()> on_closed;
  bool is_pipe = false;

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::string> queue;
  bool writing = false;
  bool stopping = false;
  bool closed = false;
  std::atomic<std::size_t> written{0};
  std::thread thread;

  void mark_closed() {
    {
      std::lock_guard lock(mutex);
      if (closed) return;
      closed = true;
      queue.clear();
    }
    changed.notify_all();
    post(on_closed);
  }

  bool write_all(const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(fd, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      done += static_cast<std::size_t>(n);
    }
    written += done;
    return true;
  }

  bool peer_gone() {
    pollfd p{fd, 0, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP)) != 0;
  }

  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      if (queue.empty()) {
        if (stopping || closed) return;
        changed.wait_for(lock, std::chrono::milliseconds(kIdlePollMs));
        if (queue.empty() && is_pipe && !closed) {
          lock.unlock();
          bool gone = peer_gone();
          if (gone) mark_closed();
          lock.lock();
        }
        continue;
      }
      std::string line = std::move(queue.front());
      queue.pop_front();
      writing = true;
      lock.unlock();
      bool ok = write_all(line);
      lock.lock();
      writing = false;
      changed.notify_all();
      if (!ok) {
        lock.unlock();
        mark_closed();
        lock.lock();
      }
    }
  }
};

LineWriter::LineWriter(int fd, Post post, std::function<void()> on_closed)
    : state_(std::make_shared<State>()) {
  state_->fd = fd;
  state_->post = std::move(post);
  state_->on_closed = std::move(on_closed);
  struct stat st {};
  state_->is_pipe = ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
  state_->thread = std::thread([s = state_] { s->run(); });
}

LineWriter::~LineWriter() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->changed.notify_all();
  state_->thread.join();
}

void LineWriter::write(std::string line) {
  line.push_back('\n');
  {
    std::lock_guard lock(state_->mutex);
    if (state_->closed) return;
    state_->queue.push_back(std::move(line));
  }
  state_->changed.notify_all();
}

void LineWriter::flush() {
  std::unique_lock lock(state_->mutex);
  state_->changed.wait(
      lock, [&] { return state_->closed || (state_->queue.empty() && !state_->writing); });
}

std::size_t LineWriter::bytes_written() const { return state_->written; }

}  // namespace mcpsh::transport
