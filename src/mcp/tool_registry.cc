#include "mcp/tool_registry.h"

#include <rapidjson/document.h>

#include "jsonrpc/response.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

CompiledTool compile_tool(const std::string& definition_json) {
  CompiledTool tool;
  rapidjson::Document def;
  def.Parse(definition_json.c_str(), definition_json.size());
  if (def.HasParseError() || !def.IsObject()) return tool;
  for (const char* key : {"inputSchema", "outputSchema"}) {
    auto it = def.FindMember(key);
    if (it == def.MemberEnd()) continue;
    auto compiled = schema::CompiledSchema::compile(it->value);
    if (auto* error = std::get_if<std::string>(&compiled)) {
      tool.error = std::string("has an invalid ") + key + ": " + *error;
      return tool;
    }
    (std::string_view(key) == "inputSchema" ? tool.input : tool.output) =
        std::get<schema::CompiledSchema>(std::move(compiled));
  }
  if (auto input = def.FindMember("inputSchema"); input != def.MemberEnd()) {
    auto params = read_header_params(input->value);
    if (auto* error = std::get_if<std::string>(&params)) {
      tool.error = "has an invalid inputSchema: " + *error;
      return tool;
    }
    tool.header_params = std::get<std::vector<HeaderParam>>(std::move(params));
  }
  tool.ok = true;
  return tool;
}

ToolRegistry::ToolRegistry(const discovery::Catalog& catalog,
                           std::vector<discovery::Problem>& problems,
                           TextMemo<CompiledTool>* memo) {
  tools_json_ = "[";
  for (const auto& entry : catalog.tools) {
    std::optional<CompiledTool> made;
    const CompiledTool& compiled = memo ? memo->get(entry.definition_json, compile_tool)
                                        : made.emplace(compile_tool(entry.definition_json));
    if (!compiled.error.empty())
      problems.push_back(
          {discovery::Problem::Severity::kError, entry.name,
           "tool \"" + entry.name + "\" " + compiled.error + "; the tool is not served"});
    if (!compiled.ok) continue;
    if (tools_.size() > 0) tools_json_ += ',';
    tools_json_ += entry.definition_json;
    index_.emplace(entry.name, tools_.size());
    tools_.push_back({entry, compiled.input, compiled.output, compiled.header_params});
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
