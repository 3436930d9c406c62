#include "discovery/comment_metadata.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cmath>
#include <set>
#include <sstream>
#include <variant>

#include "jsonrpc/response.h"

namespace mcpsh::discovery {

namespace {

std::string trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

struct Line {
  int number;
  std::string text;  // without the leading "#" and one space
};

std::vector<Line> comment_lines(const std::vector<std::string>& lines, int function_line) {
  std::vector<Line> block;
  for (int i = function_line - 2; i >= 0 && i < static_cast<int>(lines.size()); --i) {
    std::string t = trim(lines[static_cast<std::size_t>(i)]);
    if (t.empty() || t[0] != '#') break;
    if (t.rfind("#!", 0) == 0) break;
    std::string body = t.substr(1);
    if (!body.empty() && body[0] == ' ') body.erase(0, 1);
    if (trim(body).rfind("shellcheck ", 0) == 0) continue;
    block.push_back({i + 1, body});
  }
  return {block.rbegin(), block.rend()};
}

const std::set<std::string> kTypes = {"string", "integer", "number", "boolean", "object", "array"};

}  // namespace

CommentBlock read_comment_block(const std::vector<std::string>& lines, int function_line) {
  CommentBlock out;
  bool pending_break = false;
  for (const Line& l : comment_lines(lines, function_line)) {
    std::string t = trim(l.text);
    if (!t.empty() && t[0] == '@') {
      auto space = t.find_first_of(" \t");
      out.tags.push_back({l.number, t.substr(1, space == std::string::npos ? space : space - 1),
                          space == std::string::npos ? "" : trim(t.substr(space))});
    } else if (!out.tags.empty()) {
      out.tags.back().value += "\n" + t;  // continuation of a multi-line value
    } else if (t.empty()) {
      pending_break = !out.description.empty();
    } else {
      if (!out.description.empty()) out.description += pending_break ? "\n" : " ";
      out.description += t;
      pending_break = false;
    }
  }
  return out;
}

std::optional<std::chrono::milliseconds> parse_timeout_tag(const CommentTag& tag,
                                                           std::vector<std::string>& errors) {
  const std::string at = "line " + std::to_string(tag.line) + ": ";
  char* end = nullptr;
  double seconds = std::strtod(tag.value.c_str(), &end);
  if (tag.value.empty() || *end != '\0' || !(seconds > 0) || !std::isfinite(seconds)) {
    errors.push_back(at + "@timeout needs a positive number of seconds, got \"" + tag.value + "\"");
    return std::nullopt;
  }
  // Checked before the conversion below, which is undefined for huge values; the same
  // bound as --timeout.
  constexpr double kMaxSeconds = 365.0 * 24 * 3600;
  if (seconds > kMaxSeconds) {
    errors.push_back(at + "@timeout must be at most 31536000 seconds (365 days), got \"" +
                     tag.value + "\"");
    return std::nullopt;
  }
  return std::chrono::milliseconds(static_cast<long long>(std::ceil(seconds * 1000)));
}

std::optional<sandbox::Policy> parse_sandbox_tag(const CommentTag& tag, const std::string& folder,
                                                 std::vector<std::string>& errors) {
  auto parsed = sandbox::parse_policy(tag.value, folder);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    errors.push_back("line " + std::to_string(tag.line) + ": @" + *error);
    return std::nullopt;
  }
  return std::get<sandbox::Policy>(std::move(parsed));
}

std::vector<std::string> parse_env_tag(const CommentTag& tag) {
  std::vector<std::string> out;
  std::string word;
  for (char c : tag.value + " ") {
    if (c == ' ' || c == ',' || c == '\t') {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  return out;
}

CommentMetadata metadata_from_comments(const std::string& tool_name,
                                       const std::vector<std::string>& lines, int function_line,
                                       const std::string& folder) {
  CommentMetadata out;
  auto [description, tags] = read_comment_block(lines, function_line);

  rapidjson::Document tool(rapidjson::kObjectType);
  auto& a = tool.GetAllocator();
  tool.AddMember("name", rapidjson::Value(tool_name.c_str(), a), a);
  rapidjson::Value properties(rapidjson::kObjectType), required(rapidjson::kArrayType);
  std::optional<rapidjson::Document> input, output, annotations;
  std::string title;
  auto parse_json = [&](const CommentTag& tag) -> std::optional<rapidjson::Document> {
    rapidjson::Document d;
    d.Parse(tag.value.c_str());
    if (d.HasParseError()) {
      out.errors.push_back("line " + std::to_string(tag.line) + ": @" + tag.name +
                           " is not valid JSON (" + rapidjson::GetParseError_En(d.GetParseError()) +
                           ")");
      return std::nullopt;
    }
    if (!d.IsObject()) {
      out.errors.push_back("line " + std::to_string(tag.line) + ": @" + tag.name +
                           " must be a JSON object");
      return std::nullopt;
    }
    return d;
  };

  for (const CommentTag& tag : tags) {
    const std::string at = "line " + std::to_string(tag.line) + ": ";
    if (tag.name == "title") {
      title = tag.value;
    } else if (tag.name == "param") {
      std::istringstream in(tag.value);
      std::string name, type;
      in >> name >> type;
      std::string text;
      std::getline(in, text);
      text = trim(text);
      bool optional = !type.empty() && type.back() == '?';
      if (optional) type.pop_back();
      if (name.empty() || !kTypes.count(type)) {
        out.errors.push_back(at +
                             "@param needs a name and a type (string, integer, number, "
                             "boolean, object, array), got \"" +
                             tag.value + "\"");
        continue;
      }
      rapidjson::Value prop(rapidjson::kObjectType);
      prop.AddMember("type", rapidjson::Value(type.c_str(), a), a);
      if (!text.empty()) prop.AddMember("description", rapidjson::Value(text.c_str(), a), a);
      if (properties.HasMember(name.c_str())) properties.RemoveMember(name.c_str());
      properties.AddMember(rapidjson::Value(name.c_str(), a), prop, a);
      if (!optional) required.PushBack(rapidjson::Value(name.c_str(), a), a);
    } else if (tag.name == "input") {
      input = parse_json(tag);
    } else if (tag.name == "output") {
      output = parse_json(tag);
    } else if (tag.name == "annotations") {
      annotations = parse_json(tag);
    } else if (tag.name == "timeout") {
      if (auto timeout = parse_timeout_tag(tag, out.errors)) out.timeout = timeout;
    } else if (tag.name == "sandbox") {
      out.sandbox = parse_sandbox_tag(tag, folder, out.errors);
    } else if (tag.name == "env") {
      auto patterns = parse_env_tag(tag);
      out.env.insert(out.env.end(), patterns.begin(), patterns.end());
    } else if (tag.name == "confirm") {
      out.confirm = trim(tag.value);
      if (out.confirm.empty()) out.errors.push_back(at + "@confirm needs the message to show");
    } else if (tag.name == "task") {
      const std::string mode = trim(tag.value);
      if (mode.empty() || mode == "optional")
        out.task = TaskSupport::kOptional;
      else if (mode == "required")
        out.task = TaskSupport::kRequired;
      else
        out.errors.push_back(at + "@task takes nothing, \"optional\" or \"required\", got \"" +
                             mode + "\"");
    } else {
      out.errors.push_back(at + "unknown tag @" + tag.name);
    }
  }

  if (!title.empty()) tool.AddMember("title", rapidjson::Value(title.c_str(), a), a);
  if (!description.empty())
    tool.AddMember("description", rapidjson::Value(description.c_str(), a), a);
  if (input) {
    tool.AddMember("inputSchema", rapidjson::Value(*input, a), a);
  } else {
    rapidjson::Value schema(rapidjson::kObjectType);
    schema.AddMember("type", "object", a);
    if (properties.MemberCount() > 0) {
      schema.AddMember("properties", properties, a);
      if (!required.Empty()) schema.AddMember("required", required, a);
    }
    tool.AddMember("inputSchema", schema, a);
  }
  if (output) tool.AddMember("outputSchema", rapidjson::Value(*output, a), a);
  if (annotations) {
    if (annotations->IsObject())
      if (auto d = annotations->FindMember("destructiveHint");
          d != annotations->MemberEnd() && d->value.IsTrue())
        out.destructive = true;
    tool.AddMember("annotations", rapidjson::Value(*annotations, a), a);
  }

  out.definition_json = jsonrpc::to_json(tool);
  return out;
}

}  // namespace mcpsh::discovery
