#pragma once
// The MCP revisions this host speaks.
#include <array>
#include <string_view>

namespace mcpsh::mcp {

// Modern (stateless, per-request _meta) revisions.
inline constexpr std::array<std::string_view, 1> kModernVersions = {"2026-07-28"};

inline bool is_modern_version(std::string_view v) {
  for (auto m : kModernVersions)
    if (m == v) return true;
  return false;
}

}  // namespace mcpsh::mcp
