#pragma once
// Everything the core serves from one catalog: the tool, resource and prompt registries,
// who the server says it is, and the results that never change between two discoveries,
// rendered once. Immutable once built (but for the legacy tools/list renderings, made on
// first use on the core's thread). Shared by shared_ptr: a reload swaps the core's
// Offering while the calls started on the old one finish on it (their pointers into its
// registries stay valid).
#include <map>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "execution/call_runner.h"
#include "mcp/paged_list.h"
#include "mcp/prompt_registry.h"
#include "mcp/resource_registry.h"
#include "mcp/server_profile.h"
#include "mcp/text_memo.h"
#include "mcp/tool_registry.h"

namespace mcpsh::mcp {

// What building an Offering compiled, for the next one, built from a catalog that mostly
// repeats it (a reload): tool definitions and URI templates, by their text (adr/0024). One
// build at a time; each build drops what it did not use.
struct OfferingMemo {
  TextMemo<CompiledTool> tools;
  TextMemo<ResourceRegistry::ParsedTemplate> templates;
};

class Offering {
 public:
  // `live`: the catalog is watched and reloaded, so list changes are announced (the
  // listChanged and subscribe capabilities say so). `memo`: what earlier builds compiled.
  Offering(const discovery::Catalog& catalog, const std::vector<std::string>& resource_dirs,
           bool live, std::size_t page_size = kDefaultPageSize, OfferingMemo* memo = nullptr);

  static constexpr std::size_t kDefaultPageSize = 100;

  // Problems found while preparing it (invalid schemas and templates), before the registries
  // that append to it.
  std::vector<discovery::Problem> problems;
  ToolRegistry tools;
  ResourceRegistry resources;
  PromptRegistry prompts;
  ServerProfileView profile;
  std::string discover_result;
  PagedList tool_list, resource_list, template_list, prompt_list;
  // Scripts with implemented tools, each with the confinements its tools run under: the
  // warm processes to keep.
  std::vector<execution::WarmTarget> warm_targets;
  bool task_tools = false;  // a tool may run as a task (@task)

  // The tools list of a legacy revision (without the fields it does not define), rendered
  // at its first use.
  const PagedList& legacy_tool_list(const std::string& version) const;

 private:
  std::size_t page_size_;
  mutable std::map<std::string, PagedList, std::less<>> legacy_tool_lists_;
};

}  // namespace mcpsh::mcp
