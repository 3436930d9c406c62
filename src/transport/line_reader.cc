#include "transport/line_reader.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "transport/line_framer.h"

namespace mcpsh::transport {

struct LineReader::Shared {
  int fd;
  std::size_t max_line;
  Post post;
  LineEvents events;
};

LineReader::LineReader(int fd, std::size_t max_line, Post post, LineEvents events)
    : shared_(std::make_shared<Shared>(Shared{fd, max_line, std::move(post), std::move(events)})) {}

LineReader::~LineReader() = default;

void LineReader::start() {
  // The thread owns a reference to Shared, so it may outlive this object safely.
  std::thread([shared = shared_] {
    LineFramer framer(shared->max_line);
    std::vector<char> buffer(1 << 16);
    auto deliver = [&](LineFramer::Event event) {
      if (event.oversized_size) {
        shared->post([shared, size = event.oversized_size] { shared->events.on_oversized(size); });
      } else {
        shared->post([shared, line = std::move(event.line)]() mutable {
          shared->events.on_line(std::move(line));
        });
      }
    };
    for (;;) {
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
