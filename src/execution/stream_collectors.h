#pragma once
// Bounded collectors for a child's output streams: memory stays within the cap however
// much the child writes; the totals still count every byte.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::execution {

// Keeps the first `cap` bytes.
class HeadCollector {
 public:
  explicit HeadCollector(std::size_t cap) : cap_(cap) {}
  void append(std::string_view bytes) {
    total_ += bytes.size();
    if (kept_.size() >= cap_ || bytes.empty()) return;
    // Reserved once, at the cap: address space, touched only as bytes arrive. Doubling
    // growth would briefly hold the head twice. Past kReserveAtOnce (a cap that large is
    // rare, and so much address space per call could be refused) it grows as usual.
    if (kept_.capacity() < cap_)
      kept_.reserve(std::min(cap_, std::max(kReserveAtOnce, kept_.capacity())));
    kept_.append(bytes.substr(0, cap_ - kept_.size()));
  }
  std::uint64_t total() const { return total_; }
  std::string take() { return std::move(kept_); }

 private:
  static constexpr std::size_t kReserveAtOnce = 64 << 20;
  std::size_t cap_;
  std::uint64_t total_ = 0;
  std::string kept_;
};

// Keeps the last `cap` bytes (amortised: trims when twice the cap).
class TailCollector {
 public:
  explicit TailCollector(std::size_t cap) : cap_(cap) {}
  void append(std::string_view bytes) {
    total_ += bytes.size();
    if (cap_ == 0) return;
    if (bytes.size() >= cap_) {
      kept_.assign(bytes.substr(bytes.size() - cap_));
      return;
    }
    kept_.append(bytes);
    if (kept_.size() > 2 * cap_) kept_.erase(0, kept_.size() - cap_);
  }
  std::uint64_t total() const { return total_; }
  std::string take() {
    if (kept_.size() > cap_) kept_.erase(0, kept_.size() - cap_);
    return std::move(kept_);
  }

 private:
  std::size_t cap_;
  std::uint64_t total_ = 0;
  std::string kept_;
};

// Splits a byte stream into lines; a line longer than `max_line` is cut there (the rest
// of it is dropped) so one endless line cannot grow memory.
class LineSplitter {
 public:
  explicit LineSplitter(std::size_t max_line) : max_(max_line) {}

  template <class OnLine>
  void feed(std::string_view bytes, OnLine&& on_line) {
    while (!bytes.empty()) {
      auto nl = bytes.find('\n');
      std::string_view part = bytes.substr(0, nl);
      if (partial_.size() < max_) partial_.append(part.substr(0, max_ - partial_.size()));
      if (nl == std::string_view::npos) return;
      on_line(std::exchange(partial_, {}));
      bytes.remove_prefix(nl + 1);
    }
  }

  // The unterminated last line, if any.
  std::optional<std::string> flush() {
    if (partial_.empty()) return std::nullopt;
    return std::exchange(partial_, {});
  }

 private:
  std::size_t max_;
  std::string partial_;
};

}  // namespace mcpsh::execution
