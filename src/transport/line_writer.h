#pragma once
// Writes whole lines to a file descriptor from a thread of its own, in the order they
// were queued. Each message is written in full before the next one starts, so lines
// never interleave; a slow reader never blocks the caller.
//
// When the peer goes away (EPIPE, or POLLERR/POLLHUP on an idle pipe), on_closed is
// posted once and everything queued later is dropped. SIGPIPE must be ignored by the
// program (the CLI does it).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace mcpsh::transport {

class LineWriter {
 public:
  using Post = std::function<void(std::function<void()>)>;
  LineWriter(int fd, Post post, std::function<void()> on_closed);
  ~LineWriter();  // drains the queue (bounded by the peer reading it), then joins

  // Queues `line` + '\n'. `line` must not contain '\n'.
  void write(std::string line);
  // Blocks until everything queued so far is written or the peer is gone.
  void flush();
  std::size_t bytes_written() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace mcpsh::transport
