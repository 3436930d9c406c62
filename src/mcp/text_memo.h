#pragma once
// What one build of an Offering made from a text (a tool's definition, a URI template),
// kept for the next build (a reload), which mostly repeats it: the same text makes the same
// value, so it is made once (adr/0024). Values are immutable once made and may be copied
// into the Offerings that share them. One build at a time.
#include <cstddef>
#include <map>
#include <string>
#include <utility>

namespace mcpsh::mcp {

template <typename T>
class TextMemo {
 public:
  // The value made from `text`: the kept one, or make(text), kept from now on.
  template <typename Make>
  const T& get(const std::string& text, Make make) {
    auto it = slots_.find(text);
    if (it != slots_.end()) {
      ++reused_;
    } else {
      ++made_;
      it = slots_.emplace(text, Slot{make(text)}).first;
    }
    it->second.used = true;
    return it->second.value;
  }

  // Ends a build: what it did not use is dropped; the counts start again.
  void sweep() {
    for (auto it = slots_.begin(); it != slots_.end();)
      if (std::exchange(it->second.used, false))
        ++it;
      else
        it = slots_.erase(it);
    last_made_ = std::exchange(made_, 0);
    last_reused_ = std::exchange(reused_, 0);
  }

  // Of the build swept last: values made, and values taken from the build before it.
  std::size_t made() const { return last_made_; }
  std::size_t reused() const { return last_reused_; }

 private:
  struct Slot {
    T value;
    bool used = false;
  };
  std::map<std::string, Slot, std::less<>> slots_;
  std::size_t made_ = 0, reused_ = 0, last_made_ = 0, last_reused_ = 0;
};

}  // namespace mcpsh::mcp
