#pragma once
// What every line the host writes must be: one JSON value (no trailing bytes, no NUL, no
// raw newline) made of valid UTF-8 (no surrogates, no overlongs, nothing above U+10FFFF).
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::fuzz {

// nullopt when `line` is a valid wire line, else what is wrong with it.
std::optional<std::string> wire_line_fault(std::string_view line);

// Offset of the first byte that is not part of a valid UTF-8 sequence, or nullopt.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

}  // namespace mcpsh::fuzz
