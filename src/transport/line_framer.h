#pragma once
// Pure framing logic of LineReader (no I/O), so it is unit-testable.
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace mcpsh::transport {

class LineFramer {
 public:
  struct Event {
    std::string line;                // valid when oversized_size == 0
    std::size_t oversized_size = 0;  // > 0: a line of this many bytes was dropped
  };

  explicit LineFramer(std::size_t max_line) : max_(max_line) {}

  template <class Sink>
  void feed(std::string_view bytes, Sink&& sink) {
    while (!bytes.empty()) {
      auto nl = bytes.find('\n');
      std::string_view part = bytes.substr(0, nl);
      seen_ += part.size();
      if (!dropping_) {
        if (line_.size() + part.size() > max_) {
          dropping_ = true;
          line_.clear();
          line_.shrink_to_fit();
        } else {
          line_.append(part);
        }
      }
      if (nl == std::string_view::npos) return;
      end_line(sink);
      bytes.remove_prefix(nl + 1);
    }
  }

  template <class Sink>
  void finish(Sink&& sink) {
    if (seen_ > 0) end_line(sink);
  }

 private:
  template <class Sink>
  void end_line(Sink&& sink) {
    if (dropping_) {
      sink(Event{{}, seen_});
    } else {
      if (!line_.empty() && line_.back() == '\r') line_.pop_back();
      bool blank = true;
      for (char c : line_)
        if (!std::isspace(static_cast<unsigned char>(c))) {
          blank = false;
          break;
        }
      if (!blank) sink(Event{std::move(line_), 0});
    }
    line_.clear();
    seen_ = 0;
    dropping_ = false;
  }

  std::size_t max_;
  std::string line_;
  std::size_t seen_ = 0;
  bool dropping_ = false;
};

}  // namespace mcpsh::transport
