#include "mcp/server_profile.h"

#include "jsonrpc/json_write.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

namespace {
std::string quote(const std::string& text) {
  std::string out;
  jsonrpc::append_json_string(out, text);
  return out;
}
}  // namespace

ServerProfileView::ServerProfileView(const std::optional<discovery::ServerProfile>& p) {
  server_info_ = p && p->server_info ? *p->server_info
                                     : std::string(R"({"name":"mcp-shell-host","version":")") +
                                           MCPSH_VERSION + "\"}";
  // Logging: tools' log lines become notifications/message when a request asks for them.
  capabilities_ =
      p && p->capabilities ? *p->capabilities : R"({"tools":{"listChanged":false},"logging":{}})";
  if (p) instructions_ = p->instructions;
  ttl_ms_ = p && p->ttl_ms ? *p->ttl_ms : kDefaultTtlMs;
  cache_scope_ = p && p->cache_scope ? *p->cache_scope : kDefaultCacheScope;
  server_info_value_.Parse(server_info_.c_str(), server_info_.size());
}

std::string ServerProfileView::discover_result_json() const {
  std::string versions;
  for (auto v : kModernVersions)
    versions += (versions.empty() ? "\"" : ",\"") + std::string(v) + "\"";
  std::string out = R"({"resultType":"complete","supportedVersions":[)" + versions +
                    R"(],"capabilities":)" + capabilities_;
  if (instructions_) out += R"(,"instructions":)" + quote(*instructions_);
  out += R"(,"ttlMs":)" + std::to_string(ttl_ms_) + R"(,"cacheScope":")" + cache_scope_ +
         R"(","_meta":{"io.modelcontextprotocol/serverInfo":)" + server_info_ + "}}";
  return out;
}

std::string ServerProfileView::list_result_json(const std::string& tools_json) const {
  return R"({"resultType":"complete","tools":)" + tools_json + R"(,"ttlMs":)" +
         std::to_string(ttl_ms_) + R"(,"cacheScope":")" + cache_scope_ +
         R"(","_meta":{"io.modelcontextprotocol/serverInfo":)" + server_info_ + "}}";
}

std::string ServerProfileView::initialize_result_json(std::string_view version) const {
  std::string out = R"({"protocolVersion":")" + std::string(version) + R"(","capabilities":)" +
                    capabilities_ + R"(,"serverInfo":)" + server_info_;
  if (instructions_) out += R"(,"instructions":)" + quote(*instructions_);
  return out + "}";
}

std::string ServerProfileView::legacy_list_result_json(const std::string& tools_json) {
  return R"({"tools":)" + tools_json + "}";
}

void ServerProfileView::complete(rapidjson::Document& result, bool legacy) const {
  if (legacy) return;
  auto& a = result.GetAllocator();
  result.AddMember("resultType", "complete", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("io.modelcontextprotocol/serverInfo", rapidjson::Value(server_info_value_, a), a);
  result.AddMember("_meta", meta, a);
}

}  // namespace mcpsh::mcp
