#pragma once
// The catalog's resources, ready to serve: templates compiled once, the list results
// rendered once, a URI resolved to what reads it.
//
// Resolution order for resources/read (deterministic, documented in the README):
//  1. a resource_<name> whose @uri is exactly the URI;
//  2. a directory published with --resource-dir whose prefix the URI has;
//  3. the first template, in list order, that the URI matches.
// A resource whose template is invalid, or whose fixed URI repeats one listed before it,
// is not served (an error problem names it), as a tool with an invalid schema is not.
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "discovery/catalog.h"
#include "mcp/text_memo.h"
#include "resources/resource_dir.h"
#include "resources/uri_template.h"

namespace mcpsh::mcp {

struct RegisteredResource {
  discovery::ResourceEntry entry;
  std::optional<resources::UriTemplate> uri_template;  // set for templates
};

// What a URI names.
struct ResourceTarget {
  const RegisteredResource* resource = nullptr;  // a function to run, or
  const resources::ResourceDir* dir = nullptr;   // a directory to read from
  std::map<std::string, std::string> variables;  // a template's values
};

class ResourceRegistry {
 public:
  // What a URI template's text parses to (or why it does not).
  using ParsedTemplate = std::variant<resources::UriTemplate, std::string>;

  // Appends problems (invalid templates, repeated URIs, unreadable directories). With
  // `memo`, a template parsed by an earlier registry is not parsed again.
  ResourceRegistry(const discovery::Catalog& catalog, const std::vector<std::string>& dirs,
                   std::vector<discovery::Problem>& problems,
                   TextMemo<ParsedTemplate>* memo = nullptr);

  bool empty() const { return resources_.empty() && dirs_.empty(); }
  std::optional<ResourceTarget> resolve(const std::string& uri) const;
  const RegisteredResource* find_template(std::string_view uri_template) const;
  // The template a published folder is listed with (its uri_prefix + "{+path}").
  bool is_folder_template(std::string_view uri_template) const;
  // "[...]" of Resource objects (fixed URIs, then the files of every directory) and of
  // ResourceTemplate objects (templates, then one per directory), in list order.
  const std::string& resources_json() const { return resources_json_; }
  const std::string& templates_json() const { return templates_json_; }

 private:
  std::vector<RegisteredResource> resources_;
  std::vector<resources::ResourceDir> dirs_;
  std::map<std::string, std::size_t, std::less<>> fixed_;
  std::string resources_json_, templates_json_;
};

}  // namespace mcpsh::mcp
