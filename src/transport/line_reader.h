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

class LineReader {
 public:
  using Post = std::function<void(std::function<void()>)>;
  LineReader(int fd, std::size_t max_line, Post post, LineEvents events);
  ~LineReader();  // detaches a thread still blocked in read(2); it touches nothing of ours
  void start();

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace mcpsh::transport
