#include "mcp/method_table.h"

#include <array>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/message.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

namespace {

// Resources, prompts and completion exist in both eras; the core answers -32601 for
// those the scripts offer nothing of (their capability is not advertised).
constexpr std::array<MethodSpec, 20> kMethods = {{
    {"initialize", MethodId::kInitialize, false, false},
    {"server/discover", MethodId::kDiscover, true, true},
    {"tools/list", MethodId::kToolsList, true, true},
    {"tools/call", MethodId::kToolsCall, true, true},
    {"ping", MethodId::kPing, false, true},
    {"logging/setLevel", MethodId::kSetLevel, false, true},
    {"resources/list", MethodId::kResourcesList, true, true},
    {"resources/templates/list", MethodId::kResourceTemplatesList, true, true},
    {"resources/read", MethodId::kResourcesRead, true, true},
    {"prompts/list", MethodId::kPromptsList, true, true},
    {"prompts/get", MethodId::kPromptsGet, true, true},
    {"completion/complete", MethodId::kComplete, true, true},
    {"subscriptions/listen", MethodId::kListen, true, false},
    {"resources/subscribe", MethodId::kSubscribe, false, true},
    {"resources/unsubscribe", MethodId::kUnsubscribe, false, true},
    // Tasks: the extension of 2026-07-28 (get, update, cancel) and those of 2025-11-25 (get,
    // result, list, cancel; the core refuses them below that revision).
    {"tasks/get", MethodId::kTasksGet, true, true},
    {"tasks/update", MethodId::kTasksUpdate, true, false},
    {"tasks/cancel", MethodId::kTasksCancel, true, true},
    {"tasks/result", MethodId::kTasksResult, false, true},
    {"tasks/list", MethodId::kTasksList, false, true},
}};

// Legacy requests carry only a progressToken in _meta; the rest comes from the session.
RequestMeta legacy_meta(const rapidjson::Value* params, const LegacySession& session) {
  RequestMeta meta;
  meta.legacy = true;
  meta.protocol_version = session.version;
  meta.log_level = session.log_level;
  meta.client_name = session.client_name;
  meta.client_capabilities = session.client_capabilities;
  if (params) {
    auto m = params->FindMember("_meta");
    if (m != params->MemberEnd() && m->value.IsObject()) {
      auto token = m->value.FindMember("progressToken");
      if (token != m->value.MemberEnd())
        if (auto id = jsonrpc::to_request_id(token->value)) meta.progress_token_json = id->json;
    }
  }
  return meta;
}

Refusal not_found(std::string_view method, std::string_view why = "") {
  return Refusal{jsonrpc::kMethodNotFound,
                 "Method not found: " + std::string(method) + std::string(why), std::nullopt};
}

}  // namespace

std::variant<Route, Refusal> route(std::string_view method, const rapidjson::Value* params,
                                   const std::optional<LegacySession>& legacy) {
  const MethodSpec* spec = nullptr;
  for (const auto& m : kMethods)
    if (m.name == method) spec = &m;
  if (!spec) return not_found(method);

  if (!has_modern_meta(params)) {
    if (spec->id == MethodId::kInitialize) return Route{spec, {}};
    if (legacy && spec->legacy) return Route{spec, legacy_meta(params, *legacy)};
    // In an initialize session a request without modern _meta is the session's: a method
    // of 2026-07-28 alone does not exist for it.
    if (legacy && !spec->legacy)
      return not_found(method, " (not part of MCP " + legacy->version + "; it exists in MCP " +
                                   std::string(kModernVersions[0]) + ")");
  }
  if (!spec->modern)
    return not_found(method, " (not part of MCP " + std::string(kModernVersions[0]) +
                                 (spec->legacy ? "; it exists after initialize)" : ")"));
  auto meta = read_request_meta(params);
  if (auto* error = std::get_if<MetaError>(&meta))
    return Refusal{error->code, std::move(error->message), std::move(error->requested)};
  return Route{spec, std::get<RequestMeta>(std::move(meta))};
}

rapidjson::Document unsupported_version_data(const std::string& requested) {
  rapidjson::Document data(rapidjson::kObjectType);
  auto& a = data.GetAllocator();
  data.AddMember("requested", rapidjson::Value(requested.c_str(), a), a);
  rapidjson::Value supported(rapidjson::kArrayType);
  for (auto v : kModernVersions)
    supported.PushBack(rapidjson::Value(v.data(), static_cast<rapidjson::SizeType>(v.size()), a),
                       a);
  data.AddMember("supported", supported, a);
  return data;
}

}  // namespace mcpsh::mcp
