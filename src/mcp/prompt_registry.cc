#include "mcp/prompt_registry.h"

namespace mcpsh::mcp {

PromptRegistry::PromptRegistry(const discovery::Catalog& catalog)
    : prompts_(catalog.prompts), completers_(catalog.completers) {
  prompts_json_ = "[";
  for (std::size_t i = 0; i < prompts_.size(); ++i) {
    if (i > 0) prompts_json_ += ',';
    prompts_json_ += prompts_[i].definition_json;
    index_.emplace(prompts_[i].name, i);
  }
  prompts_json_ += ']';
  for (std::size_t i = 0; i < completers_.size(); ++i)
    completer_index_.emplace(completers_[i].name, i);
}

const discovery::PromptEntry* PromptRegistry::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &prompts_[it->second];
}

const discovery::CompleterEntry* PromptRegistry::completer(std::string_view name) const {
  auto it = completer_index_.find(name);
  return it == completer_index_.end() ? nullptr : &completers_[it->second];
}

}  // namespace mcpsh::mcp
