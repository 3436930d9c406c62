#include "mcp/tool_registry.h"

#include <rapidjson/document.h>

#include "jsonrpc/response.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

ToolRegistry::ToolRegistry(const discovery::Catalog& catalog,
                           std::vector<discovery::Problem>& problems) {
  tools_json_ = "[";
  for (const auto& entry : catalog.tools) {
    rapidjson::Document def;
    def.Parse(entry.definition_json.c_str(), entry.definition_json.size());
    RegisteredTool tool{entry, std::nullopt, std::nullopt};
    bool ok = !def.HasParseError() && def.IsObject();
    for (const char* key : {"inputSchema", "outputSchema"}) {
      if (!ok) break;
      auto it = def.FindMember(key);
      if (it == def.MemberEnd()) continue;
      auto compiled = schema::CompiledSchema::compile(it->value);
      if (auto* error = std::get_if<std::string>(&compiled)) {
        problems.push_back({discovery::Problem::Severity::kError, entry.name,
                            "tool \"" + entry.name + "\" has an invalid " + key + ": " + *error +
                                "; the tool is not served"});
        ok = false;
        break;
      }
      (std::string_view(key) == "inputSchema" ? tool.input : tool.output) =
          std::get<schema::CompiledSchema>(std::move(compiled));
    }
    if (ok) {
      if (auto input = def.FindMember("inputSchema"); input != def.MemberEnd()) {
        auto params = read_header_params(input->value);
        if (auto* error = std::get_if<std::string>(&params)) {
          problems.push_back({discovery::Problem::Severity::kError, entry.name,
                              "tool \"" + entry.name + "\" has an invalid inputSchema: " + *error +
                                  "; the tool is not served"});
          ok = false;
        } else {
          tool.header_params = std::get<std::vector<HeaderParam>>(std::move(params));
        }
      }
    }
    if (!ok) continue;
    if (tools_.size() > 0) tools_json_ += ',';
    tools_json_ += entry.definition_json;
    index_.emplace(entry.name, tools_.size());
    tools_.push_back(std::move(tool));
  }
  tools_json_ += ']';
}

std::string ToolRegistry::tools_json_for(std::string_view legacy_version) const {
  const bool structured = has_structured_output(legacy_version);
  rapidjson::Document tools;
  tools.Parse(tools_json_.c_str(), tools_json_.size());
  const bool tasks = has_legacy_tasks(legacy_version);
  for (rapidjson::SizeType i = 0; i < tools.Size(); ++i) {
    auto& tool = tools[i];
    // Whether a call may (or must) ask for a task: execution.taskSupport.
    if (const auto task = tools_[i].entry.task; tasks && task != discovery::TaskSupport::kNone) {
      rapidjson::Value execution(rapidjson::kObjectType);
      execution.AddMember(
          "taskSupport",
          rapidjson::StringRef(task == discovery::TaskSupport::kRequired ? "required" : "optional"),
          tools.GetAllocator());
      tool.RemoveMember("execution");
      tool.AddMember("execution", execution, tools.GetAllocator());
    }
    if (!structured) {
      for (const char* key : {"title", "outputSchema", "icons", "execution"})
        tool.RemoveMember(key);
      continue;
    }
    // Legacy revisions allow only "type": "object" at the root of an outputSchema.
    auto out = tool.FindMember("outputSchema");
    if (out == tool.MemberEnd()) continue;
    const auto& schema = out->value;
    if (!(schema.IsObject() && schema.HasMember("type") && schema["type"] == "object"))
      tool.RemoveMember("outputSchema");
  }
  return jsonrpc::to_json(tools);
}

const RegisteredTool* ToolRegistry::find(std::string_view name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tools_[it->second];
}

}  // namespace mcpsh::mcp
