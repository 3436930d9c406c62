#pragma once
// Writes whole lines to a file descriptor in the order they were queued. Each message is
// written in full before the next one starts, so lines never interleave; a slow reader
// never blocks the caller. When nothing is queued, write() puts what fits into a pipe or
// socket at once, without waiting (output_descriptor.h: write_now); the rest, and
// everything else, is written by a thread of its own.
//
// Flow control: queued_bytes() counts what is queued and not yet written. Once it reaches
// high_water, over_high_water() is true until the queue falls to half of it; then
// on_drained is posted. A producer that stops producing while over_high_water() is true
// (the stdio server stops reading stdin) is therefore always woken up again.
//
// The writer never waits for the peer on its own account: abandon() (and the destructor)
// makes the thread drop what is queued and end promptly even when the peer stopped
// reading with the pipe still open (see output_descriptor.h).
//
// When the peer goes away (EPIPE, or POLLERR/POLLHUP on a pipe or socket), on_closed is
// posted once and everything queued later is dropped. SIGPIPE must be ignored by the
// program (the CLI does it): write() itself may be the call that finds the reader gone.
//
// Threading: every member function may be called from any thread. Callbacks are handed to
// `post`, which must move them to the consumer's thread; they may be posted until the
// destructor returns.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace mcpsh::transport {

struct WriterEvents {
  std::function<void()> on_closed;   // the peer is gone; posted once
  std::function<void()> on_drained;  // over_high_water() became false
};

class LineWriter {
 public:
  using Post = std::function<void(std::function<void()>)>;
  static constexpr std::size_t kDefaultHighWater = 4u << 20;

  LineWriter(int fd, Post post, WriterEvents events, std::size_t high_water = kDefaultHighWater);
  ~LineWriter();  // abandon(), then joins the thread
  LineWriter(const LineWriter&) = delete;
  LineWriter& operator=(const LineWriter&) = delete;

  // Queues `line` + '\n'. `line` must not contain '\n'. Dropped once closed or abandoned.
  void write(std::string line);

  std::size_t queued_bytes() const;
  bool over_high_water() const;
  // True once the peer is gone.
  bool closed() const;

  // Posts `done` once everything queued so far is written, the peer is gone or the writer
  // is abandoned (at once if that is already so). One waiter at a time: a second call
  // replaces the first.
  void when_flushed(std::function<void()> done);

  // Drops everything queued, stops a write in progress (a line may be cut short) and
  // ends the thread. Pending when_flushed waiters are posted.
  void abandon();

 private:
  struct State;
  std::unique_ptr<State> state_;  // the thread uses it until the destructor joins
};

}  // namespace mcpsh::transport
