#pragma once
// The comment blocks a catalog build parses, kept for the next build (a reload): a script
// whose probe result the next round reuses has files that did not change (adr/0020), so
// its functions' blocks parse to the same metadata and are not read again (adr/0024).
// Keyed by the probe result (its address, kept alive by the memo) and the function name.
// One build at a time.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <variant>

#include "discovery/comment_metadata.h"
#include "discovery/discoverer.h"
#include "discovery/entry_metadata.h"
#include "discovery/script_probe.h"

namespace mcpsh::discovery {

using ParsedBlock = std::variant<CommentMetadata, ResourceMetadata, PromptMetadata>;

struct CatalogMemo::State {
  struct Script {
    std::shared_ptr<const void> probe;  // keeps the key's address from being reused
    std::map<std::string, ParsedBlock> blocks;
  };
  std::map<const void*, Script> scripts;
  std::size_t parsed = 0, reused = 0;  // comment blocks, by the last build
};

// Reads the comment blocks of one build, from the memo when it has them. On destruction the
// memo keeps what this build read (and only that: a script gone is forgotten).
class CommentReader {
 public:
  explicit CommentReader(CatalogMemo* memo);
  ~CommentReader();
  CommentReader(const CommentReader&) = delete;
  CommentReader& operator=(const CommentReader&) = delete;

  // The script whose functions the next calls read: its probe result, which is the same
  // object only as long as the script's files are unchanged.
  void script(std::shared_ptr<const void> probe);
  // The metadata of the function at `f` (named `name` without its kind's prefix).
  const CommentMetadata& tool(const FunctionSite& f, const std::string& name);
  const ResourceMetadata& resource(const FunctionSite& f, const std::string& name);
  const PromptMetadata& prompt(const FunctionSite& f, const std::string& name);

 private:
  template <typename Meta, typename Parse>
  const Meta& get(const FunctionSite& f, Parse parse);

  CatalogMemo* memo_;
  CatalogMemo::State next_;
  CatalogMemo::State::Script* last_ = nullptr;  // the memo's entry for the current script
  CatalogMemo::State::Script* current_ = nullptr;
  std::map<std::string, std::vector<std::string>> files_;  // lines, by path
};

}  // namespace mcpsh::discovery
