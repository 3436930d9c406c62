#pragma once
// Turning a tool's raw bytes into the texts of a result. Invalid UTF-8 needs no repair
// here: the JSON-RPC writers replace it wherever it reaches the wire (jsonrpc/utf8.h).
#include <cstdint>
#include <string>
#include <string_view>

namespace mcpsh::mcp {

// Removes trailing '\n' characters, exactly as the shell's $(...) does.
std::string_view trim_trailing_newlines(std::string_view text);

// "1.5 MiB", "312 bytes".
std::string human_bytes(std::uint64_t n);

}  // namespace mcpsh::mcp
