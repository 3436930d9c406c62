#include "wire_check.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

namespace mcpsh::fuzz {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t n = text.size(), i = 0;
  while (i < n) {
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second byte (RFC 3629 table)
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;  // U+D800..U+DFFF are not characters
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += len;
  }
  return std::nullopt;
}

std::optional<std::string> wire_line_fault(std::string_view line) {
  if (line.find('\n') != std::string_view::npos) return "a raw newline inside one line";
  if (line.find('\0') != std::string_view::npos) return "a NUL byte";
  if (auto at = first_invalid_utf8(line)) return "invalid UTF-8 at byte " + std::to_string(*at);
  rapidjson::Document d;
  d.Parse(line.data(), line.size());
  if (d.HasParseError())
    return std::string("not JSON: ") + rapidjson::GetParseError_En(d.GetParseError()) +
           " at byte " + std::to_string(d.GetErrorOffset());
  if (!d.IsObject()) return "not a JSON object";
  return std::nullopt;
}

}  // namespace mcpsh::fuzz
