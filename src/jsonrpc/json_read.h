#pragma once
// How the host reads JSON that comes from outside it (request lines, a tool's JSON
// output): bounded work per input, and one meaning for text that RapidJSON 1.1 alone
// would read inconsistently.
//
// Before RapidJSON sees the text, one pass over it (scan_json) finds:
//  - a NUL byte: an error at its offset. (RapidJSON takes a NUL for the end of the text
//    and would silently ignore the rest of the line, a second request included.)
//  - the nesting depth: deeper than kMaxNesting is refused before any DOM is built, so
//    memory stays proportional to the text whatever its shape.
//  - lone surrogate escapes ("\udc00", "\ud800" without its pair): each is read as
//    U+FFFD, the same for a lone high and a lone low surrogate. (RapidJSON would store
//    a lone low surrogate as the invalid bytes ED B0 80 and reject a lone high one.)
//    Pairs are read as the character they encode.
//  - numbers whose value is zero written with a fraction or an exponent ("0e90",
//    "-0.0E+300", "0.0000000000000000000000000") are rewritten in place as "0.0" or "-0.0"
//    followed by spaces ("0" or "-0" when the token is too short for that and a space).
//    RapidJSON 1.1's exact-number path sends a zero significand through DiyFp::Normalize, which is
//    undefined for zero: "0e90" was read as 7.07e72, and 25 zeros after the point as -1.37e-194.
//
// Threading: none; pure functions.
#include <rapidjson/document.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::jsonrpc {

// JSON nested deeper than this is refused: RapidJSON's DOM users (the schema validator,
// the writers) recurse once per level, and each level costs memory.
inline constexpr std::size_t kMaxNesting = 256;

struct JsonScan {
  std::size_t depth = 0;                  // deepest nesting of arrays and objects
  std::optional<std::size_t> nul_offset;  // the first NUL byte, if any
  std::size_t lone_surrogates = 0;        // escapes of unpaired surrogates
  std::size_t zero_numbers = 0;           // zeros with a fraction or exponent ("0e90")
  // Every bracket closed, none closed that was not open, and no string left open. Text
  // that is not balanced is not JSON, however deep.
  bool balanced = true;
};

// One pass over JSON text; brackets and escapes inside strings are told apart from
// structure. Meaningful for any bytes, valid JSON or not.
JsonScan scan_json(std::string_view text);

// Rewrites each lone surrogate escape in `text` as "\uFFFD" (the same length).
void replace_lone_surrogates(std::string& text);
// Rewrites each zero written with a fraction or an exponent as "0.0" or "-0.0" padded with
// spaces to the same length ("0e90" -> "0.0 ", "-0.000" -> "-0.0  "; "0e0" -> "0  ").
void canonicalize_zeros(std::string& text);

// Parsed JSON and the text its strings point into (parsed in situ: no copy of strings).
struct ParsedJson {
  enum class Failure { kNone, kNul, kTooDeep, kSyntax };
  Failure failure = Failure::kNone;
  std::string error;  // why, for people: "Missing a name for object member. at offset 1"
  // Null unless failure is kNone. Owns the consumed text; valid as long as it is held.
  std::shared_ptr<rapidjson::Document> document;
};

// Parses `text` (consumed: it becomes the storage of the document's strings) with exact
// numbers and strict UTF-8, under the rules above.
ParsedJson parse_json(std::string text);
// The same, for a caller that has already scanned the text: `scan` is scan_json(text).
ParsedJson parse_json(std::string text, const JsonScan& scan);

// Deepest nesting of arrays and objects in JSON text (brackets inside strings skipped).
inline std::size_t nesting_depth(std::string_view json) { return scan_json(json).depth; }

}  // namespace mcpsh::jsonrpc
