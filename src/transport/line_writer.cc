#include "transport/line_writer.h"

#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "transport/output_descriptor.h"

namespace mcpsh::transport {

struct LineWriter::State {
  int fd;
  OutputKind kind;
  Post post;
  WriterEvents events;
  std::size_t high_water;
  int wake_fd = -1;  // eventfd: "look at the queue and the flags again"

  mutable std::mutex mutex;
  std::deque<std::string> queue;
  std::size_t queued = 0;   // bytes in `queue`
  std::size_t writing = 0;  // bytes of the line being written, 0 when none
  bool over = false;
  bool closed = false;
  bool abandoned = false;
  std::function<void()> flushed_waiter;

  std::thread thread;

  // Callbacks decided with `mutex` held are posted after it is released, so a `post` that
  // takes locks of its own (or a consumer that calls back in) cannot deadlock with us.
  using Outbox = std::vector<std::function<void()>>;
  void send(Outbox& out) {
    for (auto& f : out) post(std::move(f));
    out.clear();
  }

  void wake() {
    std::uint64_t one = 1;
    // Cannot fail short of a counter overflow, which 2^64 wake-ups would take.
    [[maybe_unused]] ssize_t n = ::write(wake_fd, &one, sizeof one);
  }
  void drain_wake() {
    std::uint64_t value;
    [[maybe_unused]] ssize_t n = ::read(wake_fd, &value, sizeof value);
  }

  // With `mutex` held. Hands over the flush waiter if nothing is left to write.
  void flushed_if_done(Outbox& out) {
    if (!flushed_waiter) return;
    if (closed || abandoned || (queue.empty() && writing == 0)) {
      out.push_back(std::move(flushed_waiter));
      flushed_waiter = nullptr;
    }
  }

  // With `mutex` held. Ends the high-water state once the queue is down to half of it.
  void drained_if_low(Outbox& out) {
    if (over && queued + writing <= high_water / 2) {
      over = false;
      if (events.on_drained) out.push_back(events.on_drained);
    }
  }

  // With `mutex` held. Empties the queue; the line being written is accounted by its owner.
  void drop_queue(Outbox& out) {
    queue.clear();
    queued = 0;
    drained_if_low(out);
    flushed_if_done(out);
  }

  void mark_closed() {
    Outbox out;
    {
      std::lock_guard lock(mutex);
      if (closed) return;
      closed = true;
      drop_queue(out);
      if (events.on_closed) out.push_back(events.on_closed);
    }
    send(out);
  }

  bool is_abandoned() {
    std::lock_guard lock(mutex);
    return abandoned;
  }

  void run() {
    for (;;) {
      std::string line;
      Outbox out;
      {
        std::lock_guard lock(mutex);
        if (abandoned || closed) return;
        if (!queue.empty()) {
          line = std::move(queue.front());
          queue.pop_front();
          queued -= line.size();
          writing = line.size();
        } else {
          flushed_if_done(out);
        }
      }
      send(out);
      if (line.empty()) {
        bool gone = wait_woken_or_peer_gone(fd, kind, wake_fd);
        drain_wake();
        if (gone) mark_closed();
        continue;
      }
      std::size_t written = 0;
      WriteEnd end;
      while ((end = write_until_woken(fd, kind, line, written, wake_fd)) == WriteEnd::kWokenUp) {
        drain_wake();
        if (is_abandoned()) break;
      }
      {
        std::lock_guard lock(mutex);
        writing = 0;
        drained_if_low(out);
        flushed_if_done(out);
      }
      send(out);
      if (end == WriteEnd::kPeerGone) mark_closed();
    }
  }
};

LineWriter::LineWriter(int fd, Post post, WriterEvents events, std::size_t high_water)
    : state_(std::make_unique<State>()) {
  state_->fd = fd;
  state_->kind = output_kind(fd);
  state_->post = std::move(post);
  state_->events = std::move(events);
  state_->high_water = high_water;
  state_->wake_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (state_->wake_fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  state_->thread = std::thread([s = state_.get()] {
    ::pthread_setname_np(::pthread_self(), "mcpsh-writer");  // as top -H and perf show it
    s->run();
  });
}

LineWriter::~LineWriter() {
  abandon();
  state_->thread.join();
  ::close(state_->wake_fd);
}

void LineWriter::write(std::string line) {
  line.push_back('\n');
  {
    std::lock_guard lock(state_->mutex);
    if (state_->closed || state_->abandoned) return;
    if (state_->queue.empty() && state_->writing == 0) {
      // Nothing ahead of it: what fits goes now, from this thread, so the reader is woken
      // by the thread that made the message rather than after a hand-over to ours (one
      // scheduling step fewer per message). The lock keeps our thread from starting a line
      // meanwhile; the write cannot block (output_descriptor.h).
      if (auto n = write_now(state_->fd, state_->kind, line)) {
        if (*n == line.size()) return;
        line.erase(0, *n);
      }
    }
    state_->queued += line.size();
    state_->queue.push_back(std::move(line));
    if (state_->queued + state_->writing >= state_->high_water) state_->over = true;
  }
  state_->wake();
}

std::size_t LineWriter::queued_bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->queued + state_->writing;
}

bool LineWriter::over_high_water() const {
  std::lock_guard lock(state_->mutex);
  return state_->over;
}

bool LineWriter::closed() const {
  std::lock_guard lock(state_->mutex);
  return state_->closed;
}

void LineWriter::when_flushed(std::function<void()> done) {
  State::Outbox out;
  {
    std::lock_guard lock(state_->mutex);
    state_->flushed_waiter = std::move(done);
    state_->flushed_if_done(out);
  }
  state_->send(out);
}

void LineWriter::abandon() {
  State::Outbox out;
  {
    std::lock_guard lock(state_->mutex);
    if (state_->abandoned) return;
    state_->abandoned = true;
    state_->drop_queue(out);
    // The line being written is given up too, though the writer thread may still be
    // inside its write: nothing queued remains to be delivered from now on.
    state_->writing = 0;
  }
  state_->send(out);
  state_->wake();
}

}  // namespace mcpsh::transport
