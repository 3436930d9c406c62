#pragma once
// The catalog's prompts and completers, ready to serve: the list result rendered once,
// lookups by name. Pure; immutable after construction.
#include <map>
#include <string>
#include <vector>

#include "discovery/catalog.h"

namespace mcpsh::mcp {

class PromptRegistry {
 public:
  explicit PromptRegistry(const discovery::Catalog& catalog);

  bool empty() const { return prompts_.empty(); }
  const discovery::PromptEntry* find(std::string_view name) const;
  const discovery::CompleterEntry* completer(std::string_view name) const;
  bool has_completers() const { return !completers_.empty(); }
  const std::string& prompts_json() const { return prompts_json_; }  // "[{prompt},...]"

 private:
  std::vector<discovery::PromptEntry> prompts_;
  std::vector<discovery::CompleterEntry> completers_;
  std::map<std::string, std::size_t, std::less<>> index_, completer_index_;
  std::string prompts_json_;
};

}  // namespace mcpsh::mcp
