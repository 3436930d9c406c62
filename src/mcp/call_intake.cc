#include "mcp/call_intake.h"

#include "jsonrpc/error_codes.h"
#include "jsonrpc/response.h"

namespace mcpsh::mcp {

std::variant<CallPlan, CallRefusal, ShapedResult> take_call(const rapidjson::Value* params,
                                                            const ToolRegistry& registry,
                                                            const execution::Limits& defaults,
                                                            Exchange& exchange) {
  auto invalid = [](std::string what) {
    return CallRefusal{jsonrpc::kInvalidParams, "Invalid params: " + std::move(what)};
  };
  auto name_it = params ? params->FindMember("name") : rapidjson::Value::ConstMemberIterator();
  if (!params || name_it == params->MemberEnd()) return invalid("\"name\" is required");
  if (!name_it->value.IsString()) return invalid("\"name\" must be a string");
  std::string name(name_it->value.GetString(), name_it->value.GetStringLength());
  exchange.tool = name;
  const rapidjson::Value* arguments = nullptr;
  if (auto it = params->FindMember("arguments"); it != params->MemberEnd()) {
    if (!it->value.IsObject()) return invalid("\"arguments\" must be an object");
    arguments = &it->value;
  }
  const RegisteredTool* tool = registry.find(name);
  // The old core's wording, so that migrated clients see the same errors.
  if (!tool) return CallRefusal{jsonrpc::kInvalidParams, "Tool not found: " + name};
  if (!tool->entry.implemented)
    return CallRefusal{
        jsonrpc::kInvalidParams,
        "Tool not found: " + name + " (advertised, but no function tool_" + name + " is defined)"};

  if (arguments)
    for (const auto& member : arguments->GetObject())
      exchange.argument_names.emplace_back(member.name.GetString(), member.name.GetStringLength());
  if (tool->input) {
    static const rapidjson::Value kEmpty(rapidjson::kObjectType);
    auto violations = tool->input->validate(arguments ? *arguments : kEmpty);
    if (!violations.empty())
      return error_result(
          "Invalid arguments for tool '" + name + "':\n" + schema::describe(violations),
          "invalid_arguments");
  }
  CallPlan plan{
      tool,
      {tool->entry.script, "tool_" + tool->entry.name,
       arguments ? jsonrpc::to_json(*arguments) : "{}", defaults, tool->entry.confinement}};
  if (tool->entry.timeout) plan.launch.limits.timeout = *tool->entry.timeout;
  return plan;
}

}  // namespace mcpsh::mcp
