#include "mcp/header_value.h"

#include "mcp/base64.h"

namespace mcpsh::mcp {

namespace {

constexpr std::string_view kPrefix = "=?base64?";
constexpr std::string_view kSuffix = "?=";

bool field_value_char(unsigned char c) { return c == '\t' || (c >= 0x20 && c <= 0x7e); }

}  // namespace

bool same_ignoring_case(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

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
