#pragma once
// Reads newline-delimited messages from a file descriptor, on the consumer's event loop
// when the descriptor is a pipe, otherwise on a thread of its own.
//
// On the loop (start(io)): the pipe is opened again through /proc/self/fd with O_NONBLOCK,
// an open file of our own, so the flags of the one we were given (and share with whoever
// else holds it) stay as they are. The loop wakes up when bytes arrive and hands each
// event to its handler at once: one scheduling step fewer per message than a thread that
// wakes up first and then wakes the loop.
// On a thread (start(), or start(io) for anything else: terminals, regular files and
// /dev/null, which epoll refuses, sockets, or a pipe /proc cannot open again): blocking
// read(2) works for every kind of stdin; each event is handed to `post`, which must move
// it to the consumer's thread.
//
// Framing: '\n' ends a line; a trailing '\r' is removed; lines that are empty or only
// whitespace are skipped; a last line without '\n' is delivered at end of input. A line
// longer than max_line is not kept: on_oversized reports its size once it ends, so memory
// stays bounded whatever the peer sends.
//
// Backpressure: at most `bounds.lines` events and `bounds.bytes` bytes of lines are posted
// and not yet handled (one line is always allowed, however long); and while the consumer
// has paused the reader it neither reads nor posts. Either way the reader stops taking
// bytes from the descriptor, so a peer that writes faster than we handle blocks in its
// write(2): nothing is dropped, memory stays bounded.
//
// Threading: set_paused() may be called from any thread. The thread holds the state it
// needs, so the object may be destroyed while the thread is blocked in read(2) or paused.
// On the loop, the object must be destroyed on the loop's thread while the loop is not
// running (its pending read is cancelled then).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

namespace boost::asio {
class io_context;
}

namespace mcpsh::transport {

struct LineEvents {
  std::function<void(std::string)> on_line;
  std::function<void(std::size_t)> on_oversized;
  std::function<void()> on_eof;  // also on a read error; nothing follows it
};

// Events posted and not yet handled, at most.
struct ReaderBounds {
  std::size_t lines = 64;
  std::size_t bytes = 1u << 20;
};

class LineReader {
 public:
  using Post = std::function<void(std::function<void()>)>;
  LineReader(int fd, std::size_t max_line, Post post, LineEvents events, ReaderBounds bounds = {});
  ~LineReader();  // detaches a thread still blocked in read(2); it touches nothing of ours
  // Reads on a thread of its own.
  void start();
  // Reads on `io`'s thread when the descriptor is a pipe /proc can open again, otherwise
  // as start(). Returns true when it reads on the loop.
  bool start(boost::asio::io_context& io);

  // While paused the reader reads nothing and posts nothing; the events already posted
  // are still delivered.
  void set_paused(bool paused);

 private:
  struct Shared;
  struct OnLoop;
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<OnLoop> on_loop_;
};

}  // namespace mcpsh::transport
