#pragma once
// Who the server says it is: serverInfo, capabilities, instructions and cache hints, from
// an old-core config file when there is one, else the host's own defaults. Renders the
// results that never change (discover, tools/list) once, and completes the others.
#include <optional>
#include <string>

#include <rapidjson/document.h>

#include "discovery/catalog.h"

namespace mcpsh::mcp {

// Defaults: the old core's, so that a migrated server's results do not change.
inline constexpr std::int64_t kDefaultTtlMs = 60000;
inline constexpr const char* kDefaultCacheScope = "public";

class ServerProfileView {
 public:
  explicit ServerProfileView(const std::optional<discovery::ServerProfile>& profile);

  std::string discover_result_json() const;
  std::string list_result_json(const std::string& tools_json) const;
  // Adds resultType "complete" and _meta.serverInfo to a result object.
  void complete(rapidjson::Document& result) const;
  const std::string& server_info_json() const { return server_info_; }

 private:
  std::string server_info_;   // JSON object
  std::string capabilities_;  // JSON object
  std::optional<std::string> instructions_;
  std::int64_t ttl_ms_;
  std::string cache_scope_;
};

}  // namespace mcpsh::mcp
