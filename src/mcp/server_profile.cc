#include "mcp/server_profile.h"

#include "jsonrpc/json_write.h"
#include "jsonrpc/response.h"
#include "mcp/protocol_versions.h"
#include "mcp/request_meta.h"

namespace mcpsh::mcp {

namespace {
std::string quote(const std::string& text) {
  std::string out;
  jsonrpc::append_json_string(out, text);
  return out;
}
}  // namespace

namespace {
// The capabilities object with one for each kind offered that it does not name already.
std::string with_offers(const std::string& capabilities, Offers offers) {
  rapidjson::Document d;
  d.Parse(capabilities.c_str(), capabilities.size());
  if (d.HasParseError() || !d.IsObject()) return capabilities;
  auto& a = d.GetAllocator();
  auto add = [&](bool offered, const char* key, const char* value) {
    if (!offered || d.HasMember(key)) return;
    rapidjson::Document v(&a);
    v.Parse(value);
    d.AddMember(rapidjson::StringRef(key), rapidjson::Value(v, a), a);
  };
  add(offers.resources, "resources", "{}");
  add(offers.prompts, "prompts", "{}");
  add(offers.completions, "completions", "{}");
  for (const char* key : {"tools", "resources", "prompts"}) {
    auto it = d.FindMember(key);
    if (it == d.MemberEnd() || !it->value.IsObject()) continue;
    // true when the host reloads. A config file that says listChanged (or subscribe)
    // false is obeyed: the host then announces nothing of that kind, as the old core did
    // not.
    auto set = [&](const char* flag) {
      if (!it->value.HasMember(flag))
        it->value.AddMember(rapidjson::StringRef(flag), offers.live, a);
    };
    set("listChanged");
    if (std::string_view(key) == "resources") set("subscribe");
  }
  return jsonrpc::to_json(d);
}

// The capabilities of server/discover when a tool may run as a task: the tasks extension is
// added (to the extensions a config file names). The legacy era has no extensions: initialize keeps
// the plain object (and never the 2025-11-25 "tasks" capability, which this host does not serve).
std::string with_extensions(const std::string& capabilities) {
  rapidjson::Document d;
  d.Parse(capabilities.c_str(), capabilities.size());
  if (d.HasParseError() || !d.IsObject()) return capabilities;
  auto& a = d.GetAllocator();
  if (!d.HasMember("extensions"))
    d.AddMember("extensions", rapidjson::Value(rapidjson::kObjectType), a);
  auto& extensions = d["extensions"];
  if (extensions.IsObject() && !extensions.HasMember(kTasksExtension))
    extensions.AddMember(rapidjson::StringRef(kTasksExtension),
                         rapidjson::Value(rapidjson::kObjectType), a);
  return jsonrpc::to_json(d);
}

// The capabilities of initialize at 2025-11-25 when a tool may run as a task: the tasks of
// that revision, for tools/call, with tasks/cancel and (`list`) tasks/list (unless a config
// file names "tasks" itself).
std::string with_legacy_tasks(const std::string& capabilities, bool list) {
  rapidjson::Document d;
  d.Parse(capabilities.c_str(), capabilities.size());
  if (d.HasParseError() || !d.IsObject() || d.HasMember("tasks")) return capabilities;
  rapidjson::Document tasks(&d.GetAllocator());
  tasks.Parse(list ? R"({"list":{},"cancel":{},"requests":{"tools":{"call":{}}}})"
                   : R"({"cancel":{},"requests":{"tools":{"call":{}}}})");
  d.AddMember("tasks", rapidjson::Value(tasks, d.GetAllocator()), d.GetAllocator());
  return jsonrpc::to_json(d);
}
}  // namespace

ServerProfileView::ServerProfileView(const std::optional<discovery::ServerProfile>& p,
                                     Offers offers) {
  server_info_ = p && p->server_info ? *p->server_info
                                     : std::string(R"({"name":"mcp-shell-host","version":")") +
                                           MCPSH_VERSION + "\"}";
  // Logging: tools' log lines become notifications/message when a request asks for them.
  capabilities_ = p && p->capabilities ? *p->capabilities : R"({"tools":{},"logging":{}})";
  capabilities_ = with_offers(capabilities_, offers);
  rapidjson::Document caps;
  caps.Parse(capabilities_.c_str(), capabilities_.size());
  discover_capabilities_ = offers.tasks ? with_extensions(capabilities_) : capabilities_;
  legacy_task_capabilities_ = offers.tasks ? with_legacy_tasks(capabilities_, true) : capabilities_;
  legacy_task_capabilities_unlisted_ =
      offers.tasks ? with_legacy_tasks(capabilities_, false) : capabilities_;
  // What the host may announce over its life: a kind not offered now may be added by a
  // reload, so it counts as the host's default unless a config file says otherwise.
  auto flag = [&](const char* kind, const char* name) {
    if (!offers.live || !caps.IsObject()) return false;
    auto it = caps.FindMember(kind);
    if (it == caps.MemberEnd() || !it->value.IsObject()) return true;
    auto f = it->value.FindMember(name);
    return f == it->value.MemberEnd() || !f->value.IsBool() || f->value.GetBool();
  };
  announces_ = Announced{flag("tools", "listChanged"), flag("prompts", "listChanged"),
                         flag("resources", "listChanged"), flag("resources", "subscribe")};
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
                    R"(],"capabilities":)" + discover_capabilities_;
  if (instructions_) out += R"(,"instructions":)" + quote(*instructions_);
  out += R"(,"ttlMs":)" + std::to_string(ttl_ms_) + R"(,"cacheScope":")" + cache_scope_ +
         R"(","_meta":{"io.modelcontextprotocol/serverInfo":)" + server_info_ + "}}";
  return out;
}

std::string ServerProfileView::list_result_json(std::string_view key,
                                                const std::string& items_json) const {
  return R"({"resultType":"complete",")" + std::string(key) + "\":" + items_json + R"(,"ttlMs":)" +
         std::to_string(ttl_ms_) + R"(,"cacheScope":")" + cache_scope_ +
         R"(","_meta":{"io.modelcontextprotocol/serverInfo":)" + server_info_ + "}}";
}

std::string ServerProfileView::initialize_result_json(std::string_view version,
                                                      bool stateless) const {
  const std::string& capabilities = !has_legacy_tasks(version) ? capabilities_
                                    : stateless                ? legacy_task_capabilities_unlisted_
                                                               : legacy_task_capabilities_;
  std::string out = R"({"protocolVersion":")" + std::string(version) + R"(","capabilities":)" +
                    capabilities + R"(,"serverInfo":)" + server_info_;
  if (instructions_) out += R"(,"instructions":)" + quote(*instructions_);
  return out + "}";
}

std::string ServerProfileView::legacy_list_result_json(std::string_view key,
                                                       const std::string& items_json) {
  return "{\"" + std::string(key) + "\":" + items_json + "}";
}

void ServerProfileView::add_cache_hints(rapidjson::Document& result) const {
  auto& a = result.GetAllocator();
  result.AddMember("ttlMs", ttl_ms_, a);
  result.AddMember("cacheScope", rapidjson::Value(cache_scope_.c_str(), a), a);
}

void ServerProfileView::complete(rapidjson::Document& result, bool legacy) const {
  if (legacy) return;
  result.AddMember("resultType", "complete", result.GetAllocator());
  add_server_info(result);
}

void ServerProfileView::add_server_info(rapidjson::Document& result) const {
  auto& a = result.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("io.modelcontextprotocol/serverInfo", rapidjson::Value(server_info_value_, a), a);
  result.AddMember("_meta", meta, a);
}

}  // namespace mcpsh::mcp
