#include "mcp/header_value.h"

#include <cstdint>

namespace mcpsh::mcp {

namespace {

constexpr std::string_view kPrefix = "=?base64?";
constexpr std::string_view kSuffix = "?=";

bool field_value_char(unsigned char c) { return c == '\t' || (c >= 0x20 && c <= 0x7e); }

int base64_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  std::uint32_t bits = 0;
  int count = 0;
  for (std::size_t i = 0; i + padding < text.size(); ++i) {
    int digit = base64_digit(text[i]);
    if (digit < 0) return std::nullopt;  // includes '=' anywhere but the end
    bits = (bits << 6) | static_cast<std::uint32_t>(digit);
    if (++count == 4) {
      out.push_back(static_cast<char>((bits >> 16) & 0xff));
      out.push_back(static_cast<char>((bits >> 8) & 0xff));
      out.push_back(static_cast<char>(bits & 0xff));
      bits = 0;
      count = 0;
    }
  }
  // What the padding leaves: 3 digits give 2 bytes, 2 digits give 1.
  if (count == 3) {
    out.push_back(static_cast<char>((bits >> 10) & 0xff));
    out.push_back(static_cast<char>((bits >> 2) & 0xff));
  } else if (count == 2) {
    out.push_back(static_cast<char>((bits >> 4) & 0xff));
  }
  return out;
}

}  // namespace

std::string_view trim_ows(std::string_view value) {
  auto ows = [](char c) { return c == ' ' || c == '\t'; };
  while (!value.empty() && ows(value.front())) value.remove_prefix(1);
  while (!value.empty() && ows(value.back())) value.remove_suffix(1);
  return value;
}

std::optional<std::string> decode_header_value(std::string_view value) {
  for (char c : value)
    if (!field_value_char(static_cast<unsigned char>(c))) return std::nullopt;
  // The markers must not overlap: "=?base64?=" is a literal.
  if (value.size() >= kPrefix.size() + kSuffix.size() &&
      value.substr(0, kPrefix.size()) == kPrefix &&
      value.substr(value.size() - kSuffix.size()) == kSuffix)
    return decode_base64(
        value.substr(kPrefix.size(), value.size() - kPrefix.size() - kSuffix.size()));
  return std::string(value);
}

}  // namespace mcpsh::mcp
