#pragma once
// Turning a tool's raw bytes into text a JSON string may carry.
#include <cstdint>
#include <string>
#include <string_view>

namespace mcpsh::mcp {

// Replaces every invalid UTF-8 sequence with U+FFFD, so that any bytes a tool prints
// still produce valid JSON. Valid input is returned unchanged.
std::string valid_utf8(std::string_view bytes);

// Removes trailing '\n' characters, exactly as the shell's $(...) does.
std::string_view trim_trailing_newlines(std::string_view text);

// "1.5 MiB", "312 bytes".
std::string human_bytes(std::uint64_t n);

}  // namespace mcpsh::mcp
