#include "mcp/offering.h"

#include <algorithm>

namespace mcpsh::mcp {

namespace {
bool has_task_tools(const discovery::Catalog& catalog) {
  return std::any_of(catalog.tools.begin(), catalog.tools.end(),
                     [](const auto& tool) { return tool.task != discovery::TaskSupport::kNone; });
}
}  // namespace

Offering::Offering(const discovery::Catalog& catalog, const std::vector<std::string>& resource_dirs,
                   bool live, std::size_t page_size, OfferingMemo* memo)
    : tools(catalog, problems, memo ? &memo->tools : nullptr),
      resources(catalog, resource_dirs, problems, memo ? &memo->templates : nullptr),
      prompts(catalog),
      profile(catalog.profile, Offers{!resources.empty(), !prompts.empty(),
                                      prompts.has_completers(), live, has_task_tools(catalog)}),
      discover_result(profile.discover_result_json()),
      tool_list("tools", tools.tools_json(), page_size, profile),
      resource_list("resources", resources.resources_json(), page_size, profile),
      template_list("resourceTemplates", resources.templates_json(), page_size, profile),
      prompt_list("prompts", prompts.prompts_json(), page_size, profile),
      task_tools(has_task_tools(catalog)),
      page_size_(page_size) {
  for (std::size_t i = 0; i < tools.size(); ++i) {
    const auto& entry = tools.at(i).entry;
    execution::WarmTarget target(entry.script, entry.confinement);
    if (entry.implemented &&
        std::find(warm_targets.begin(), warm_targets.end(), target) == warm_targets.end())
      warm_targets.push_back(std::move(target));
  }
  if (memo) {
    memo->tools.sweep();
    memo->templates.sweep();
  }
}

const PagedList& Offering::legacy_tool_list(const std::string& version) const {
  auto it = legacy_tool_lists_.find(version);
  if (it == legacy_tool_lists_.end())
    it = legacy_tool_lists_
             .emplace(
                 std::piecewise_construct, std::forward_as_tuple(version),
                 std::forward_as_tuple("tools", tools.tools_json_for(version), page_size_, profile))
             .first;
  return it->second;
}

}  // namespace mcpsh::mcp
