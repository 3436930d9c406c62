#pragma once
// Who the server says it is: serverInfo, capabilities, instructions and cache hints, from
// an old-core config file when there is one, else the host's own defaults. Renders the
// results that never change (discover, tools/list) once, and completes the others.
#include <rapidjson/document.h>

#include <optional>
#include <string>

#include "discovery/catalog.h"

namespace mcpsh::mcp {

// Defaults: the old core's, so that a migrated server's results do not change.
inline constexpr std::int64_t kDefaultTtlMs = 60000;
inline constexpr const char* kDefaultCacheScope = "public";

// What the scripts offer besides tools: each adds its capability (and a config file's
// capabilities object gets it too, when it does not name it).
struct Offers {
  bool resources = false;
  bool prompts = false;
  bool completions = false;
  // Reloaded when its scripts change: the listChanged capabilities are true, and resources
  // can be subscribed to.
  bool live = false;
  // A tool may run as a task (@task): server/discover names the tasks extension.
  bool tasks = false;
};

// What the host announces (listChanged, subscribe) over its life: true while it reloads,
// unless a config file's capabilities say false for that kind. Nothing else is sent.
struct Announced {
  bool tools = false, prompts = false, resources = false, subscribe = false;
};

class ServerProfileView {
 public:
  explicit ServerProfileView(const std::optional<discovery::ServerProfile>& profile,
                             Offers offers = {});

  std::string discover_result_json() const;
  const Announced& announces() const { return announces_; }
  std::string list_result_json(const std::string& tools_json) const {
    return list_result_json("tools", tools_json);
  }
  // A modern list result (tools, resources, resourceTemplates, prompts) with cache hints.
  std::string list_result_json(std::string_view key, const std::string& items_json) const;
  // The cache hints every cacheable modern result carries (resources/read too).
  void add_cache_hints(rapidjson::Document& result) const;
  // Legacy era: the InitializeResult, and a ListToolsResult without the modern fields.
  // `stateless`: over HTTP, where tasks/list is not served (requestors are not told apart).
  std::string initialize_result_json(std::string_view version, bool stateless = false) const;
  static std::string legacy_list_result_json(const std::string& tools_json) {
    return legacy_list_result_json("tools", tools_json);
  }
  static std::string legacy_list_result_json(std::string_view key, const std::string& items_json);
  // Modern: adds resultType "complete" and _meta.serverInfo to a result object. Legacy
  // results carry neither (their revisions do not define them).
  void complete(rapidjson::Document& result, bool legacy) const;
  // Modern: _meta.serverInfo alone (results whose resultType is another, input_required).
  void add_server_info(rapidjson::Document& result) const;

 private:
  std::string server_info_;                        // JSON object
  rapidjson::Document server_info_value_;          // the same, parsed once for complete()
  std::string capabilities_;                       // JSON object
  std::string discover_capabilities_;              // with the extensions (server/discover only)
  std::string legacy_task_capabilities_;           // with "tasks" (initialize at 2025-11-25)
  std::string legacy_task_capabilities_unlisted_;  // the same without tasks/list (HTTP)
  std::optional<std::string> instructions_;
  std::int64_t ttl_ms_;
  std::string cache_scope_;
  Announced announces_;
};

}  // namespace mcpsh::mcp
