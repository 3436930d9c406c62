#include "mcp/text.h"

#include <cstdio>

namespace mcpsh::mcp {

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is not valid.
std::size_t valid_sequence(std::string_view s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t len;
  unsigned int lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < len; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return len;
}
}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  // Valid runs are copied in one piece; ASCII is checked without decoding.
  std::size_t run_start = 0, i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = valid_sequence(s, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out.append(s.substr(run_start, i - run_start));
    out += "\xEF\xBF\xBD";
    run_start = ++i;
  }
  out.append(s.substr(run_start));
  return out;
}

std::string_view trim_trailing_newlines(std::string_view t) {
  while (!t.empty() && t.back() == '\n') t.remove_suffix(1);
  return t;
}

std::string human_bytes(std::uint64_t n) {
  char buf[64];
  if (n < 1024) return std::to_string(n) + (n == 1 ? " byte" : " bytes");
  if (n < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(n) / 1024);
  } else if (n < 1024ull * 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(n) / (1024 * 1024));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(n) / (1024.0 * 1024 * 1024));
  }
  return buf;
}

}  // namespace mcpsh::mcp
