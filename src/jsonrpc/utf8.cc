#include "jsonrpc/utf8.h"

#include <cstdint>
#include <cstring>

namespace mcpsh::jsonrpc {

namespace {

// True when one of the 8 bytes at p has its high bit set (the run is not all ASCII).
bool any_non_ascii(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, sizeof word);
  return (word & 0x8080808080808080ull) != 0;
}

// Offset of the first byte >= 0x80 at or after `i`, or text.size().
std::size_t skip_ascii(std::string_view text, std::size_t i) {
  const char* data = text.data();
  while (i + 8 <= text.size() && !any_non_ascii(data + i)) i += 8;
  while (i < text.size() && static_cast<unsigned char>(data[i]) < 0x80) ++i;
  return i;
}

}  // namespace

bool is_valid_utf8(std::string_view text) {
  std::size_t i = skip_ascii(text, 0), bad = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_sequence_length(text, i, &bad);
    if (n == 0) return false;
    i = skip_ascii(text, i + n);
  }
  return true;
}

void append_valid_utf8(std::string& out, std::string_view text) {
  // Valid runs are appended in one piece.
  std::size_t run = 0, i = skip_ascii(text, 0), bad = 0;
  while (i < text.size()) {
    const std::size_t n = utf8_sequence_length(text, i, &bad);
    if (n > 0) {
      i = skip_ascii(text, i + n);
      continue;
    }
    out.append(text.substr(run, i - run));
    out += kReplacementCharacter;
    i += bad;
    run = i;
    i = skip_ascii(text, i);
  }
  out.append(text.substr(run));
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_valid_utf8(out, text);
  return out;
}

}  // namespace mcpsh::jsonrpc
