#include "discovery/entry_metadata.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cctype>
#include <set>
#include <sstream>

#include "discovery/comment_metadata.h"
#include "jsonrpc/response.h"

namespace mcpsh::discovery {

namespace {

std::string at(const CommentTag& tag) { return "line " + std::to_string(tag.line) + ": "; }

std::optional<rapidjson::Document> json_object(const CommentTag& tag,
                                               std::vector<std::string>& errors) {
  rapidjson::Document d;
  d.Parse(tag.value.c_str());
  if (d.HasParseError()) {
    errors.push_back(at(tag) + "@" + tag.name + " is not valid JSON (" +
                     rapidjson::GetParseError_En(d.GetParseError()) + ")");
    return std::nullopt;
  }
  if (!d.IsObject()) {
    errors.push_back(at(tag) + "@" + tag.name + " must be a JSON object");
    return std::nullopt;
  }
  return d;
}

void add_string(rapidjson::Document& d, const char* key, const std::string& value) {
  if (!value.empty())
    d.AddMember(rapidjson::StringRef(key), rapidjson::Value(value.c_str(), d.GetAllocator()),
                d.GetAllocator());
}

bool single_line(const CommentTag& tag, std::vector<std::string>& errors) {
  if (tag.value.empty() || tag.value.find('\n') != std::string::npos) {
    errors.push_back(at(tag) + "@" + tag.name + " needs a value on its own line");
    return false;
  }
  return true;
}

}  // namespace

bool plausible_uri(const std::string& uri) {
  auto colon = uri.find(':');
  if (colon == std::string::npos || colon == 0 || !std::isalpha(static_cast<unsigned char>(uri[0])))
    return false;
  for (std::size_t i = 0; i < colon; ++i) {
    unsigned char c = static_cast<unsigned char>(uri[i]);
    if (!(std::isalnum(c) || c == '+' || c == '-' || c == '.')) return false;
  }
  for (unsigned char c : uri)
    if (c <= 0x20 || c == 0x7f) return false;
  return true;
}

ResourceMetadata resource_from_comments(const std::string& name,
                                        const std::vector<std::string>& lines, int function_line,
                                        const std::string& folder) {
  ResourceMetadata out;
  out.entry.name = name;
  auto [description, tags] = read_comment_block(lines, function_line);
  std::string title, size;
  std::optional<rapidjson::Document> annotations;
  const CommentTag* uri_tag = nullptr;
  for (const CommentTag& tag : tags) {
    if (tag.name == "uri") {
      if (!single_line(tag, out.errors)) continue;
      uri_tag = &tag;
      out.entry.uri = tag.value;
    } else if (tag.name == "title") {
      title = tag.value;
    } else if (tag.name == "mime") {
      if (single_line(tag, out.errors)) out.entry.mime = tag.value;
    } else if (tag.name == "size") {
      if (tag.value.empty() || tag.value.size() > 18 ||
          tag.value.find_first_not_of("0123456789") != std::string::npos)
        out.errors.push_back(at(tag) + "@size needs a number of bytes, got \"" + tag.value + "\"");
      else
        size = tag.value;
    } else if (tag.name == "annotations") {
      annotations = json_object(tag, out.errors);
    } else if (tag.name == "timeout") {
      if (auto t = parse_timeout_tag(tag, out.errors)) out.entry.timeout = t;
    } else if (tag.name == "watch") {
      if (single_line(tag, out.errors)) out.entry.watch.push_back(tag.value);
    } else if (tag.name == "sandbox") {
      out.sandbox = parse_sandbox_tag(tag, folder, out.errors);
    } else {
      out.errors.push_back(at(tag) + "unknown tag @" + tag.name +
                           " (a resource has @uri, @title, @mime, @size, @annotations, @watch, "
                           "@timeout, @sandbox)");
    }
  }
  if (out.entry.uri.empty()) {
    out.errors.push_back("resource_" + name + " needs a # @uri line in its comment block");
    return out;
  }
  out.entry.is_template = out.entry.uri.find('{') != std::string::npos;
  if (!out.entry.is_template && !plausible_uri(out.entry.uri))
    out.errors.push_back(at(*uri_tag) +
                         "@uri must be a URI with a scheme (e.g. docs://readme), got \"" +
                         out.entry.uri + "\"");
  if (out.entry.is_template && !size.empty())
    out.errors.push_back(at(*uri_tag) + "@size applies to a fixed URI, not to a template");

  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember(rapidjson::StringRef(out.entry.is_template ? "uriTemplate" : "uri"),
              rapidjson::Value(out.entry.uri.c_str(), a), a);
  d.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  add_string(d, "title", title);
  add_string(d, "description", description);
  add_string(d, "mimeType", out.entry.mime);
  if (!size.empty() && !out.entry.is_template)
    d.AddMember("size", static_cast<std::uint64_t>(std::stoull(size)), a);
  if (annotations) d.AddMember("annotations", rapidjson::Value(*annotations, a), a);
  out.entry.definition_json = jsonrpc::to_json(d);
  return out;
}

PromptMetadata prompt_from_comments(const std::string& name, const std::vector<std::string>& lines,
                                    int function_line, const std::string& folder) {
  PromptMetadata out;
  out.entry.name = name;
  auto [description, tags] = read_comment_block(lines, function_line);
  std::string title;
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value arguments(rapidjson::kArrayType);
  std::set<std::string> seen;
  for (const CommentTag& tag : tags) {
    if (tag.name == "title") {
      title = tag.value;
    } else if (tag.name == "arg") {
      std::istringstream in(tag.value);
      std::string arg, text;
      in >> arg;
      std::getline(in, text);
      auto b = text.find_first_not_of(" \t");
      text = b == std::string::npos ? "" : text.substr(b);
      bool optional = false;
      if (!arg.empty() && arg.back() == '?') {
        optional = true;
        arg.pop_back();
      } else if (text == "?" || text.rfind("? ", 0) == 0) {
        optional = true;
        text = text.size() > 2 ? text.substr(2) : "";
      }
      bool valid = !arg.empty();
      for (char c : arg)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
          valid = false;
      if (!valid) {
        out.errors.push_back(at(tag) + "@arg needs a name of [A-Za-z0-9_.-], got \"" + tag.value +
                             "\"");
        continue;
      }
      if (!seen.insert(arg).second) {
        out.errors.push_back(at(tag) + "@arg " + arg + " is given twice");
        continue;
      }
      rapidjson::Value item(rapidjson::kObjectType);
      item.AddMember("name", rapidjson::Value(arg.c_str(), a), a);
      if (!text.empty()) item.AddMember("description", rapidjson::Value(text.c_str(), a), a);
      item.AddMember("required", !optional, a);
      arguments.PushBack(item, a);
      out.entry.arguments.push_back({arg, !optional});
    } else if (tag.name == "timeout") {
      if (auto t = parse_timeout_tag(tag, out.errors)) out.entry.timeout = t;
    } else if (tag.name == "sandbox") {
      out.sandbox = parse_sandbox_tag(tag, folder, out.errors);
    } else {
      out.errors.push_back(at(tag) + "unknown tag @" + tag.name +
                           " (a prompt has @title, @arg, @timeout, @sandbox)");
    }
  }
  d.AddMember("name", rapidjson::Value(name.c_str(), a), a);
  add_string(d, "title", title);
  add_string(d, "description", description);
  if (!arguments.Empty()) d.AddMember("arguments", arguments, a);
  out.entry.definition_json = jsonrpc::to_json(d);
  return out;
}

}  // namespace mcpsh::discovery
