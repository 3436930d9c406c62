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
std::size_t utf8_sequence_length(std::string_view text, std::size_t i, std::size_t* invalid_length);

bool is_valid_utf8(std::string_view text);

// Appends `text` to `out` with every invalid sequence replaced by U+FFFD.
void append_valid_utf8(std::string& out, std::string_view text);
std::string valid_utf8(std::string_view text);

}  // namespace mcpsh::jsonrpc
