#include "mcp/request_meta.h"

#include <array>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/message.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

namespace {
constexpr std::array<const char*, 8> kLevelNames = {"debug", "info",     "notice", "warning",
                                                    "error", "critical", "alert",  "emergency"};
constexpr const char* kVersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr const char* kCapabilitiesKey = "io.modelcontextprotocol/clientCapabilities";
constexpr const char* kClientInfoKey = "io.modelcontextprotocol/clientInfo";
constexpr const char* kLogLevelKey = "io.modelcontextprotocol/logLevel";

MetaError invalid(std::string what) {
  return MetaError{jsonrpc::kInvalidParams, "Invalid params: " + what, {}};
}
}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view name) {
  for (std::size_t i = 0; i < kLevelNames.size(); ++i)
    if (name == kLevelNames[i]) return static_cast<LogLevel>(i);
  return std::nullopt;
}

const char* log_level_name(LogLevel level) { return kLevelNames[static_cast<std::size_t>(level)]; }

const rapidjson::Value* modern_meta_version(const rapidjson::Value* params) {
  if (!params || !params->IsObject()) return nullptr;
  auto meta = params->FindMember("_meta");
  if (meta == params->MemberEnd() || !meta->value.IsObject()) return nullptr;
  auto version = meta->value.FindMember(kVersionKey);
  return version == meta->value.MemberEnd() ? nullptr : &version->value;
}

bool has_modern_meta(const rapidjson::Value* params) {
  return modern_meta_version(params) != nullptr;
}

std::string answerable_capabilities(const rapidjson::Value& capabilities) {
  std::string out;
  if (!capabilities.IsObject()) return out;
  for (const char* name : {"elicitation", "sampling", "roots"}) {
    auto it = capabilities.FindMember(name);
    if (it == capabilities.MemberEnd() || !it->value.IsObject()) continue;
    // Elicitation modes (2025-11-25 on): {} means form; else "form" must be there.
    if (std::string_view(name) == "elicitation" && it->value.MemberCount() > 0 &&
        !it->value.HasMember("form"))
      continue;
    out += (out.empty() ? "" : ",") + std::string(name);
  }
  return out;
}

std::variant<RequestMeta, MetaError> read_request_meta(const rapidjson::Value* params) {
  const rapidjson::Value* meta = nullptr;
  if (params) {
    auto m = params->FindMember("_meta");
    if (m != params->MemberEnd()) {
      if (!m->value.IsObject()) return invalid("params._meta must be an object");
      meta = &m->value;
    }
  }
  auto field = [&](const char* key) -> const rapidjson::Value* {
    if (!meta) return nullptr;
    auto it = meta->FindMember(key);
    return it == meta->MemberEnd() ? nullptr : &it->value;
  };

  RequestMeta out;
  const rapidjson::Value* version = field(kVersionKey);
  if (!version) return invalid(std::string("missing params._meta[\"") + kVersionKey + "\"]");
  if (!version->IsString())
    return invalid(std::string("params._meta[\"") + kVersionKey + "\"] must be a string");
  out.protocol_version = version->GetString();
  const rapidjson::Value* caps = field(kCapabilitiesKey);
  if (!caps) return invalid(std::string("missing params._meta[\"") + kCapabilitiesKey + "\"]");
  if (!caps->IsObject())
    return invalid(std::string("params._meta[\"") + kCapabilitiesKey + "\"] must be an object");

  out.client_capabilities = answerable_capabilities(*caps);
  if (auto ext = caps->FindMember("extensions");
      ext != caps->MemberEnd() && ext->value.IsObject()) {
    auto tasks = ext->value.FindMember(kTasksExtension);
    out.tasks = tasks != ext->value.MemberEnd() && tasks->value.IsObject();
  }

  if (!is_modern_version(out.protocol_version))
    return MetaError{jsonrpc::kUnsupportedProtocolVersion,
                     "Unsupported protocol version: " + out.protocol_version, out.protocol_version};

  if (const auto* info = field(kClientInfoKey); info && info->IsObject()) {
    auto name = info->FindMember("name");
    if (name != info->MemberEnd() && name->value.IsString())
      out.client_name.assign(name->value.GetString(), name->value.GetStringLength());
  }
  if (const auto* level = field(kLogLevelKey)) {
    if (!level->IsString() || !parse_log_level(level->GetString()))
      return invalid(
          std::string("params._meta[\"") + kLogLevelKey +
          "\"] must be one of debug, info, notice, warning, error, critical, alert, emergency");
    out.log_level = parse_log_level(level->GetString());
  }
  if (const auto* token = field("progressToken")) {
    auto id = jsonrpc::to_request_id(*token);  // same shape as an id: string or integer
    if (!id) return invalid("params._meta.progressToken must be a string or an integer");
    out.progress_token_json = id->json;
  }
  return out;
}

}  // namespace mcpsh::mcp
