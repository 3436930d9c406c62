// JSON value semantics that JSON Schema defines differently from RapidJSON's operator==:
// numbers compare mathematically (1 == 1.0, int64 vs uint64 vs double), object member
// order is irrelevant, and string length is counted in Unicode code points.
//
// Contract: pure functions over values the caller keeps alive; no allocation escapes.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace mcpsh::schema::detail {

// True for a number with an integral value, whatever its storage (1.0 is an integer).
bool is_integer(const rapidjson::Value& v);

// -1, 0 or 1; both must be numbers. Exact for every int64, uint64 and double.
int compare_numbers(const rapidjson::Value& a, const rapidjson::Value& b);

// Whether `x` is a multiple of `m` (m > 0). Exact for integers; doubles use a tolerance
// of a few ulps of the quotient (an overflowing quotient falls back to exact fmod).
bool is_multiple_of(const rapidjson::Value& x, const rapidjson::Value& m);

// JSON Schema equality. Nesting deeper than kMaxCompareDepth compares as unequal, so a
// hostile instance cannot exhaust the stack.
inline constexpr int kMaxCompareDepth = 256;
bool json_equal(const rapidjson::Value& a, const rapidjson::Value& b);

// A total order consistent with json_equal (equal values compare 0), for sorting.
int json_compare(const rapidjson::Value& a, const rapidjson::Value& b);

// Whether the value nests arrays/objects deeper than `limit` (iterative, stack-safe).
bool nesting_exceeds(const rapidjson::Value& v, int limit);

// UTF-8 decoding as JSON Schema counts characters: by code point. An invalid,
// overlong-looking or truncated sequence decodes as U+FFFD, one per byte.
struct CodePoint {
  char32_t value;
  size_t bytes;
};
CodePoint next_code_point(std::string_view s, size_t at);
std::u32string decode_utf8(std::string_view s);
size_t utf8_length(std::string_view s);

inline std::string_view as_view(const rapidjson::Value& s) {
  return {s.GetString(), s.GetStringLength()};
}

}  // namespace mcpsh::schema::detail
