#pragma once
// UTF-8 validity for everything the host writes: bytes from tools, scripts and clients
// reach JSON strings through these functions, so the wire never carries invalid UTF-8.
//
// Repair follows the Unicode "maximal subpart" practice (the WHATWG decoder's): each
// maximal prefix of a valid sequence that cannot be completed, and each byte that cannot
// start one, becomes one U+FFFD. Encoded surrogates (ED A0..BF ..) and overlong forms are
// invalid. Valid input is returned unchanged.
#include <cstddef>
#include <string>
#include <string_view>

namespace mcpsh::jsonrpc {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence that starts at text[i] (1 to 4), or 0 when the bytes
// there are not one; then *invalid_length is the number of bytes one U+FFFD replaces.
// Inline: the writers call it for every non-ASCII character.
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i,
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

bool is_valid_utf8(std::string_view text);

// Appends `text` to `out` with every invalid sequence replaced by U+FFFD.
void append_valid_utf8(std::string& out, std::string_view text);
std::string valid_utf8(std::string_view text);

}  // namespace mcpsh::jsonrpc
