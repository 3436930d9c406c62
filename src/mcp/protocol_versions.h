#pragma once
// The MCP revisions this host speaks.
#include <array>
#include <string_view>

namespace mcpsh::mcp {

// Modern (stateless, per-request _meta) revisions.
inline constexpr std::array<std::string_view, 1> kModernVersions = {"2026-07-28"};

// Legacy (initialize handshake) revisions, newest first: the first one is the answer to
// an initialize that asks for a version we do not know.
inline constexpr std::array<std::string_view, 4> kLegacyVersions = {"2025-11-25", "2025-06-18",
                                                                    "2025-03-26", "2024-11-05"};

inline bool is_modern_version(std::string_view v) {
  for (auto m : kModernVersions)
    if (m == v) return true;
  return false;
}

inline bool is_legacy_version(std::string_view v) {
  for (auto m : kLegacyVersions)
    if (m == v) return true;
  return false;
}

// Tool titles, outputSchema and structuredContent exist from 2025-06-18 on (dates compare
// as strings).
inline bool has_structured_output(std::string_view version) { return version >= "2025-06-18"; }

// Tasks of the initialize era (tools/call with a "task", tasks/get, tasks/result, tasks/list,
// tasks/cancel) exist from 2025-11-25 on; MCP 2026-07-28 has the tasks extension instead.
inline bool has_legacy_tasks(std::string_view version) { return version >= "2025-11-25"; }

}  // namespace mcpsh::mcp
