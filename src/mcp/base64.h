#pragma once
// Base64 (RFC 4648 §4, the standard alphabet), decoded strictly: the one decoder of the
// protocol unit, for mirrored header values and for the payloads tools send; and the
// encoder for bytes a resource function printed. Pure.
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::mcp {

// The bytes `text` encodes; nullopt unless it uses only the standard alphabet, its length
// is a multiple of 4 and '=' pads its end alone ("SGVsbG8" lacks its padding: refused).
std::optional<std::string> decode_base64(std::string_view text);
// Standard alphabet, padded.
std::string encode_base64(std::string_view bytes);

}  // namespace mcpsh::mcp
