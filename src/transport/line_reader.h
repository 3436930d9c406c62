#pragma once
// Reads newline-delimited messages from a file descriptor on a thread of its own.
//
// A dedicated thread with blocking read(2) works for every kind of stdin a client or a
// user may give us: pipes, terminals, regular files and /dev/null (epoll refuses the
// last two). Each event is handed to `post`, which must move it to the consumer's thread.
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
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

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
  void start();

  // While paused the reader reads nothing and posts nothing; the events already posted
  // are still delivered.
  void set_paused(bool paused);

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace mcpsh::transport
