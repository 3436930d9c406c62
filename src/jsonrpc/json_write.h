#pragma once
// The writer of every JSON text the host sends to a client (through response.h):
// compact, one line, valid UTF-8 and valid JSON whatever bytes the values hold.
//
// For valid input the text is byte for byte what RapidJSON's Writer produces (same
// escapes, same number formatting), so nothing on the wire changes for well-formed
// data. Beyond it:
//  - invalid UTF-8 in any string or key is written as U+FFFD (see utf8.h), repaired and
//    escaped in one pass straight into the output;
//  - a non-finite double (which JSON cannot carry) is written as null.
// Values nest as deep as the caller built them; parsed input is bounded by kMaxNesting.
#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcpsh::jsonrpc {

// Appends `text` as a JSON string literal (quotes included).
void append_json_string(std::string& out, std::string_view text);

// Appends the compact JSON text of `value`.
void append_json(std::string& out, const rapidjson::Value& value);

// At least the length append_json will add when no string needs escaping or repair (a
// few bytes more: one comma per container, 24 per number); for reserving the output
// once instead of growing (and copying) it.
std::size_t json_size_estimate(const rapidjson::Value& value);

}  // namespace mcpsh::jsonrpc
