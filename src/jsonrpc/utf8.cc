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

std::size_t utf8_sequence_length(std::string_view text, std::size_t i,
                                 std::size_t* invalid_length) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t length;
  unsigned lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) lo = 0x90;  // no overlong forms
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    *invalid_length = 1;
    return 0;
  }
  // The maximal subpart: the lead byte and every continuation byte that still fits.
  std::size_t k = 1;
  for (; k < length && i + k < text.size(); ++k) {
    const unsigned b = byte(i + k);
    if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) break;
  }
  if (k == length) return length;
  *invalid_length = k;
  return 0;
}

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
