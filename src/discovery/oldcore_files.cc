#include "discovery/oldcore_files.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <fstream>
#include <sstream>

#include "jsonrpc/response.h"

namespace mcpsh::discovery {

namespace {

std::optional<rapidjson::Document> parse_file(const std::string& path, std::string& error) {
  auto text = read_text_file(path);
  if (!text) {
    error = path + ": cannot be read";
    return std::nullopt;
  }
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseValidateEncodingFlag>(text->c_str(), text->size());
  if (doc.HasParseError()) {
    error = path + ": not valid JSON (" + rapidjson::GetParseError_En(doc.GetParseError()) +
            " at offset " + std::to_string(doc.GetErrorOffset()) + ")";
    return std::nullopt;
  }
  if (!doc.IsObject()) {
    error = path + ": must contain a JSON object";
    return std::nullopt;
  }
  return doc;
}

}  // namespace

bool valid_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      return false;
  return true;
}

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

ToolsFile read_tools_file(const std::string& path) {
  ToolsFile out;
  std::string error;
  auto doc = parse_file(path, error);
  if (!doc) {
    out.errors.push_back(error);
    return out;
  }
  auto tools = doc->FindMember("tools");
  if (tools == doc->MemberEnd() || !tools->value.IsArray()) {
    out.errors.push_back(path + ": needs a \"tools\" array");
    return out;
  }
  std::size_t index = 0;
  for (const auto& tool : tools->value.GetArray()) {
    const std::string at = path + ": tools[" + std::to_string(index++) + "]";
    if (!tool.IsObject() || !tool.HasMember("name") || !tool["name"].IsString()) {
      out.errors.push_back(at + " needs a string \"name\"");
      continue;
    }
    std::string name = tool["name"].GetString();
    if (!valid_tool_name(name)) {
      out.errors.push_back(at + ": \"" + name +
                           "\" is not a valid tool name ([A-Za-z0-9_.-], 1-128)");
      continue;
    }
    if (tool.HasMember("inputSchema") && !tool["inputSchema"].IsObject()) {
      out.errors.push_back(at + " (" + name + "): \"inputSchema\" must be an object");
      continue;
    }
    AdvertisedTool entry{name, {}, std::nullopt};
    if (tool.HasMember("inputSchema")) {
      entry.definition_json = jsonrpc::to_json(tool);
    } else {
      // The schema requires inputSchema; the old core passed such entries through as they
      // were, which strict clients reject. Supply the default instead.
      rapidjson::Document copy;
      copy.CopyFrom(tool, copy.GetAllocator());
      rapidjson::Value schema(rapidjson::kObjectType);
      schema.AddMember("type", "object", copy.GetAllocator());
      copy.AddMember("inputSchema", schema, copy.GetAllocator());
      entry.definition_json = jsonrpc::to_json(copy);
    }
    out.tools.push_back(std::move(entry));
  }
  return out;
}

std::optional<ServerProfile> read_config_file(const std::string& path, std::string& error) {
  auto doc = parse_file(path, error);
  if (!doc) return std::nullopt;
  ServerProfile p;
  p.source = path;
  auto str_member = [&](const char* key) -> std::optional<std::string> {
    auto m = doc->FindMember(key);
    if (m != doc->MemberEnd() && m->value.IsString()) return std::string(m->value.GetString());
    return std::nullopt;
  };
  auto obj_member = [&](const char* key) -> std::optional<std::string> {
    auto m = doc->FindMember(key);
    if (m != doc->MemberEnd() && m->value.IsObject()) return jsonrpc::to_json(m->value);
    return std::nullopt;
  };
  p.server_info = obj_member("serverInfo");
  p.capabilities = obj_member("capabilities");
  p.instructions = str_member("instructions");
  p.cache_scope = str_member("cacheScope");
  if (p.cache_scope && *p.cache_scope != "public" && *p.cache_scope != "private") {
    error = path + ": \"cacheScope\" must be \"public\" or \"private\"";
    return std::nullopt;
  }
  auto ttl = doc->FindMember("ttlMs");
  if (ttl != doc->MemberEnd()) {
    if (!ttl->value.IsInt64() || ttl->value.GetInt64() < 0) {
      error = path + ": \"ttlMs\" must be an integer >= 0";
      return std::nullopt;
    }
    p.ttl_ms = ttl->value.GetInt64();
  }
  return p;
}

}  // namespace mcpsh::discovery
