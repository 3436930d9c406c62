#pragma once
// Values of the request headers MCP 2026-07-28 mirrors from the body ("Value Encoding" in
// basic-transports-streamable-http.mdx). Pure functions: no state, any thread.
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::mcp {

// Header names compare so (RFC 9110 §5.1): ASCII letters without regard to case.
bool same_ignoring_case(std::string_view a, std::string_view b);

// The value without the optional whitespace (SP, HTAB) around it: RFC 9110 §5.5 excludes it
// from the field value, so "  name  " is "name".
std::string_view trim_ows(std::string_view value);

// What a mirrored header says once decoded: a value of the form `=?base64?X?=` (markers
// exactly so, lowercase) is the bytes X encodes, anything else is itself. nullopt when the
// value holds a character a field value may not (outside visible ASCII, SP and HTAB) or
// X is not base64: only the standard alphabet, a length that is a multiple of 4 and '='
// padding at the end alone ("SGVsbG8" lacks its padding and is refused).
// `value` is taken after trim_ows.
std::optional<std::string> decode_header_value(std::string_view value);

}  // namespace mcpsh::mcp
