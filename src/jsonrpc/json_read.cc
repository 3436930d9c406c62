#include "jsonrpc/json_read.h"

#include <rapidjson/error/en.h>

#include <cstdint>
#include <cstring>

namespace mcpsh::jsonrpc {

namespace {

// True when none of the 8 bytes at p is '"', '\\' or NUL: a string's content to skip.
bool plain_string_word(const char* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  const std::uint64_t q = w ^ (kOnes * '"'), b = w ^ (kOnes * '\\');
  const std::uint64_t zero = (w - kOnes) & ~w, quote = (q - kOnes) & ~q,
                      backslash = (b - kOnes) & ~b;
  return ((zero | quote | backslash) & kHigh) == 0;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of a "\uXXXX" escape at text[i] (i at the backslash), or -1.
long escaped_unit(std::string_view text, std::size_t i) {
  if (i + 6 > text.size() || text[i] != '\\' || text[i + 1] != 'u') return -1;
  long unit = 0;
  for (std::size_t k = i + 2; k < i + 6; ++k) {
    const int h = hex_value(text[k]);
    if (h < 0) return -1;
    unit = unit * 16 + h;
  }
  return unit;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The number token starting at text[i] ('-' or a digit), outside strings. Returns its end.
// When it is a valid JSON number whose value is zero and that has a fraction or an exponent
// ("0.000", "-0e90", "0.00E+5"), reports it through on_zero_number(offset, length); a token
// that is not valid JSON ("00.0", "0.", "0e") is left for RapidJSON to refuse.
template <class OnZeroNumber>
std::size_t number_token(std::string_view text, std::size_t i, OnZeroNumber&& on_zero_number) {
  const std::size_t size = text.size(), start = i;
  bool zero = true, valid = true, decorated = false;
  auto digits = [&] {
    const std::size_t from = i;
    for (; i < size && is_digit(text[i]); ++i)
      if (text[i] != '0') zero = false;
    return i - from;
  };
  if (text[i] == '-') ++i;
  if (digits() != 1) valid = false;  // a zero's integer part is one "0"
  if (i < size && text[i] == '.') {
    decorated = true;
    ++i;
    if (digits() == 0) valid = false;
  }
  if (i < size && (text[i] == 'e' || text[i] == 'E')) {
    decorated = true;
    ++i;
    if (i < size && (text[i] == '+' || text[i] == '-')) ++i;
    const bool was_zero = zero;
    if (digits() == 0) valid = false;
    zero = was_zero;  // the exponent's digits do not make a zero anything else
  }
  if (valid && zero && decorated) on_zero_number(start, i - start);
  return i;
}

// Walks `text`, calling on_lone(offset of the backslash) for each lone surrogate escape
// and on_zero_number for each zero written with a fraction or an exponent (number_token).
template <class OnLone, class OnZeroNumber>
JsonScan walk(std::string_view text, OnLone&& on_lone, OnZeroNumber&& on_zero_number) {
  JsonScan scan;
  std::size_t depth = 0;
  const char* data = text.data();
  const std::size_t size = text.size();
  bool in_string = false;
  for (std::size_t i = 0; i < size;) {
    if (in_string) {
      if (i + 8 <= size && plain_string_word(data + i)) {
        i += 8;
        continue;
      }
      const char c = data[i];
      if (c == '"') {
        in_string = false;
        ++i;
      } else if (c == '\\') {
        const long unit = escaped_unit(text, i);
        if (unit < 0xD800 || unit > 0xDFFF) {
          i += 2;  // any other escape; a bad one is RapidJSON's to report
          continue;
        }
        if (unit <= 0xDBFF) {
          const long next = escaped_unit(text, i + 6);
          if (next >= 0xDC00 && next <= 0xDFFF) {
            i += 12;  // a pair
            continue;
          }
        }
        ++scan.lone_surrogates;
        on_lone(i);
        i += 6;
      } else {
        if (c == '\0' && !scan.nul_offset) scan.nul_offset = i;
        ++i;
      }
      continue;
    }
    switch (data[i]) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > scan.depth) scan.depth = depth;
        break;
      case ']':
      case '}':
        if (depth > 0)
          --depth;
        else
          scan.balanced = false;
        break;
      case '\0':
        if (!scan.nul_offset) scan.nul_offset = i;
        break;
      case '-':
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
      case '8':
      case '9':
        i = number_token(text, i, [&](std::size_t at, std::size_t length) {
          ++scan.zero_numbers;
          on_zero_number(at, length);
        });
        continue;
      default:
        break;
    }
    ++i;
  }
  if (depth > 0 || in_string) scan.balanced = false;
  return scan;
}

}  // namespace

JsonScan scan_json(std::string_view text) {
  return walk(
      text, [](std::size_t) {}, [](std::size_t, std::size_t) {});
}

void replace_lone_surrogates(std::string& text) {
  walk(
      text, [&](std::size_t at) { text.replace(at + 2, 4, "FFFD"); },
      [](std::size_t, std::size_t) {});
}

// Same length, so the walk's view of the text stays valid: "-0.000e9" becomes "-0.0    ".
// At least one space always follows the zero written, so that what followed the token
// cannot join it: "0e0e93" (not JSON) becomes "0  e93" (still not JSON), never "0.0e93".
void canonicalize_zeros(std::string& text) {
  walk(
      text, [](std::size_t) {},
      [&](std::size_t at, std::size_t length) {
        const bool minus = text[at] == '-';
        std::string_view zero = minus ? "-0.0" : "0.0";
        if (zero.size() >= length) zero = minus ? "-0" : "0";  // decorated: never this short
        text.replace(at, length, length, ' ');
        text.replace(at, zero.size(), zero);
      });
}

ParsedJson parse_json(std::string text) {
  const JsonScan scan = scan_json(text);
  return parse_json(std::move(text), scan);
}

ParsedJson parse_json(std::string text, const JsonScan& scan) {
  ParsedJson parsed;
  if (scan.nul_offset) {
    parsed.failure = ParsedJson::Failure::kNul;
    parsed.error = "a NUL byte at offset " + std::to_string(*scan.nul_offset);
    return parsed;
  }
  if (scan.depth > kMaxNesting && !scan.balanced) {
    parsed.failure = ParsedJson::Failure::kSyntax;
    parsed.error = "brackets or quotes do not balance";
    return parsed;
  }
  if (scan.depth > kMaxNesting) {
    parsed.failure = ParsedJson::Failure::kTooDeep;
    parsed.error = "JSON nested deeper than " + std::to_string(kMaxNesting) + " levels";
    return parsed;
  }
  if (scan.lone_surrogates > 0) replace_lone_surrogates(text);
  if (scan.zero_numbers > 0) canonicalize_zeros(text);

  // The text and the document that points into it live and die together.
  struct Owner {
    std::string text;
    rapidjson::Document document;
  };
  auto owner = std::make_shared<Owner>();
  owner->text = std::move(text);
  // RapidJSON's UTF-8 validation takes a lead byte's continuation bytes before it looks at
  // them, so a text ending in a truncated sequence ("\xf1\xf1") would be read up to 3 bytes
  // past its terminating NUL. The padding keeps every such read inside the buffer; the scan
  // above already refused NULs of the text itself.
  owner->text.append(4, '\0');
  // Invalid UTF-8 is an error (it could not be echoed). Iterative: parsing never recurses.
  // In situ: strings are decoded where they are, without a copy. Numbers take RapidJSON's
  // normal path (exact up to 15 significant digits, within an ULP or two beyond): its
  // full-precision path (StrtodDiyFp) overflows its significand on digits such as
  // "18446744073709551615" followed by a 5 or more, and read 18446744073709551615.7 as
  // -2.5e263 (found by the line fuzzer).
  owner->document
      .ParseInsitu<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(
          owner->text.data());
  if (owner->document.HasParseError()) {
    parsed.failure = ParsedJson::Failure::kSyntax;
    parsed.error = std::string(rapidjson::GetParseError_En(owner->document.GetParseError())) +
                   " at offset " + std::to_string(owner->document.GetErrorOffset());
    return parsed;
  }
  parsed.document = std::shared_ptr<rapidjson::Document>(owner, &owner->document);
  return parsed;
}

}  // namespace mcpsh::jsonrpc
