#include "mcp/offering.h"

#include <algorithm>

namespace mcpsh::mcp {

Offering::Offering(const discovery::Catalog& catalog, const std::vector<std::string>& resource_dirs,
                   bool live)
    : tools(catalog, problems),
      resources(catalog, resource_dirs, problems),
      prompts(catalog),
      profile(catalog.profile,
              Offers{!resources.empty(), !prompts.empty(), prompts.has_completers(), live}),
      discover_result(profile.discover_result_json()),
      list_result(profile.list_result_json(tools.tools_json())),
      resources_result(profile.list_result_json("resources", resources.resources_json())),
      templates_result(profile.list_result_json("resourceTemplates", resources.templates_json())),
      prompts_result(profile.list_result_json("prompts", prompts.prompts_json())) {
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const auto& entry = tools.at(i).entry;
    if (entry.implemented &&
        std::find(tool_scripts.begin(), tool_scripts.end(), entry.script) == tool_scripts.end())
      tool_scripts.push_back(entry.script);
  }
}

const std::string& Offering::legacy_list_result(const std::string& version) const {
  auto it = legacy_lists_.find(version);
  if (it == legacy_lists_.end())
    it = legacy_lists_
             .emplace(version,
                      ServerProfileView::legacy_list_result_json(tools.tools_json_for(version)))
             .first;
  return it->second;
}

}  // namespace mcpsh::mcp
