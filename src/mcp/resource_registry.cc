#include "mcp/resource_registry.h"

#include <rapidjson/document.h>

#include "jsonrpc/response.h"

namespace mcpsh::mcp {

namespace {

// More than this many files of one directory are not listed (they stay readable through
// the directory's template).
constexpr std::size_t kMaxListedFiles = 1000;

void append(std::string& array, const std::string& item) {
  array += array.size() > 1 ? "," : "";
  array += item;
}

std::string file_json(const resources::DirFile& f) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("uri", rapidjson::Value(f.uri.c_str(), a), a);
  d.AddMember("name", rapidjson::Value(f.name.c_str(), a), a);
  if (!f.mime.empty()) d.AddMember("mimeType", rapidjson::Value(f.mime.c_str(), a), a);
  d.AddMember("size", static_cast<std::uint64_t>(f.size), a);
  return jsonrpc::to_json(d);
}

std::string dir_template_json(const resources::ResourceDir& dir) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  const std::string text = dir.uri_prefix() + "{+path}";
  d.AddMember("uriTemplate", rapidjson::Value(text.c_str(), a), a);
  d.AddMember("name", rapidjson::Value(dir.root().c_str(), a), a);
  const std::string description = "Files under " + dir.root() + " (read-only)";
  d.AddMember("description", rapidjson::Value(description.c_str(), a), a);
  return jsonrpc::to_json(d);
}

}  // namespace

ResourceRegistry::ResourceRegistry(const discovery::Catalog& catalog,
                                   const std::vector<std::string>& dirs,
                                   std::vector<discovery::Problem>& problems,
                                   TextMemo<ParsedTemplate>* memo) {
  using Severity = discovery::Problem::Severity;
  resources_json_ = "[";
  templates_json_ = "[";
  for (const auto& entry : catalog.resources) {
    RegisteredResource r{entry, std::nullopt};
    if (entry.is_template) {
      auto parse = [](const std::string& text) -> ParsedTemplate {
        return resources::UriTemplate::parse(text);
      };
      std::optional<ParsedTemplate> made;
      const ParsedTemplate& parsed =
          memo ? memo->get(entry.uri, parse) : made.emplace(parse(entry.uri));
      if (const auto* error = std::get_if<std::string>(&parsed)) {
        problems.push_back({Severity::kError, "resource_" + entry.name,
                            "resource \"" + entry.name + "\" has an invalid URI template \"" +
                                entry.uri + "\": " + *error + "; the resource is not served"});
        continue;
      }
      r.uri_template = std::get<resources::UriTemplate>(parsed);
      append(templates_json_, entry.definition_json);
    } else {
      if (fixed_.count(entry.uri)) {
        problems.push_back({Severity::kError, "resource_" + entry.name,
                            "resource \"" + entry.name + "\" repeats the URI " + entry.uri +
                                " of another resource; it is not served"});
        continue;
      }
      fixed_.emplace(entry.uri, resources_.size());
      append(resources_json_, entry.definition_json);
    }
    resources_.push_back(std::move(r));
  }
  for (const auto& path : dirs) {
    auto opened = resources::ResourceDir::open(path);
    if (auto* error = std::get_if<std::string>(&opened)) {
      problems.push_back({Severity::kError, path, "--resource-dir: " + *error});
      continue;
    }
    dirs_.push_back(std::get<resources::ResourceDir>(std::move(opened)));
    bool truncated = false;
    for (const auto& f : dirs_.back().list(kMaxListedFiles, &truncated))
      append(resources_json_, file_json(f));
    if (truncated)
      problems.push_back({Severity::kWarning, path,
                          "--resource-dir lists its first " + std::to_string(kMaxListedFiles) +
                              " files; the others are readable but not listed"});
    append(templates_json_, dir_template_json(dirs_.back()));
  }
  resources_json_ += "]";
  templates_json_ += "]";
}

std::optional<ResourceTarget> ResourceRegistry::resolve(const std::string& uri) const {
  if (auto it = fixed_.find(uri); it != fixed_.end())
    return ResourceTarget{&resources_[it->second], nullptr, {}};
  for (const auto& dir : dirs_)
    if (uri.rfind(dir.uri_prefix(), 0) == 0) return ResourceTarget{nullptr, &dir, {}};
  for (const auto& r : resources_)
    if (r.uri_template)
      if (auto values = r.uri_template->match(uri)) return ResourceTarget{&r, nullptr, *values};
  return std::nullopt;
}

bool ResourceRegistry::is_folder_template(std::string_view uri_template) const {
  for (const auto& dir : dirs_)
    if (uri_template == dir.uri_prefix() + "{+path}") return true;
  return false;
}

const RegisteredResource* ResourceRegistry::find_template(std::string_view uri_template) const {
  for (const auto& r : resources_)
    if (r.uri_template && r.entry.uri == uri_template) return &r;
  return nullptr;
}

}  // namespace mcpsh::mcp
