#include "mcp/text.h"

#include <cstdio>

namespace mcpsh::mcp {

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
