#include "discovery/comment_memo.h"

#include <filesystem>
#include <sstream>
#include <utility>

#include "discovery/oldcore_files.h"

namespace mcpsh::discovery {

CatalogMemo::CatalogMemo() : state(std::make_unique<State>()) {}
CatalogMemo::~CatalogMemo() = default;
std::size_t CatalogMemo::parsed() const { return state->parsed; }
std::size_t CatalogMemo::reused() const { return state->reused; }

CommentReader::CommentReader(CatalogMemo* memo) : memo_(memo) {}

CommentReader::~CommentReader() {
  if (memo_) *memo_->state = std::move(next_);
}

void CommentReader::script(std::shared_ptr<const void> probe) {
  const void* key = probe.get();
  last_ = nullptr;
  if (memo_)
    if (auto it = memo_->state->scripts.find(key); it != memo_->state->scripts.end())
      last_ = &it->second;
  current_ = &next_.scripts[key];
  current_->probe = std::move(probe);
}

template <typename Meta, typename Parse>
const Meta& CommentReader::get(const FunctionSite& f, Parse parse) {
  if (auto it = current_->blocks.find(f.name); it != current_->blocks.end())
    return std::get<Meta>(it->second);
  if (last_)
    if (auto it = last_->blocks.find(f.name);
        it != last_->blocks.end() && std::holds_alternative<Meta>(it->second)) {
      ++next_.reused;
      return std::get<Meta>(current_->blocks.emplace(f.name, it->second).first->second);
    }
  auto lines = files_.find(f.file);
  if (lines == files_.end()) {
    std::vector<std::string> read;
    if (auto text = read_text_file(f.file)) {
      std::istringstream in(*text);
      for (std::string l; std::getline(in, l);) read.push_back(std::move(l));
    }
    lines = files_.emplace(f.file, std::move(read)).first;
  }
  ++next_.parsed;
  const std::string folder = std::filesystem::path(f.file).parent_path().string();
  return std::get<Meta>(
      current_->blocks.emplace(f.name, parse(lines->second, f.line, folder)).first->second);
}

const CommentMetadata& CommentReader::tool(const FunctionSite& f, const std::string& name) {
  return get<CommentMetadata>(f, [&](const auto& lines, int line, const std::string& folder) {
    return ParsedBlock(metadata_from_comments(name, lines, line, folder));
  });
}

const ResourceMetadata& CommentReader::resource(const FunctionSite& f, const std::string& name) {
  return get<ResourceMetadata>(f, [&](const auto& lines, int line, const std::string& folder) {
    return ParsedBlock(resource_from_comments(name, lines, line, folder));
  });
}

const PromptMetadata& CommentReader::prompt(const FunctionSite& f, const std::string& name) {
  return get<PromptMetadata>(f, [&](const auto& lines, int line, const std::string& folder) {
    return ParsedBlock(prompt_from_comments(name, lines, line, folder));
  });
}

}  // namespace mcpsh::discovery
