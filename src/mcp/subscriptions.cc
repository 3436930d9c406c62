#include "mcp/subscriptions.h"

#include "jsonrpc/response.h"

namespace mcpsh::mcp {

namespace {

constexpr const char* kSubscriptionId = "io.modelcontextprotocol/subscriptionId";

// {"jsonrpc":"2.0","method":M,"params":{"_meta":{subscriptionId: ID}, ...extra}}
std::string tagged(const char* method, const jsonrpc::RequestId& id,
                   rapidjson::Document params = rapidjson::Document(rapidjson::kObjectType)) {
  auto& a = params.GetAllocator();
  rapidjson::Document idv;
  idv.Parse(id.json.c_str(), id.json.size());
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember(rapidjson::StringRef(kSubscriptionId), rapidjson::Value(idv, a), a);
  params.AddMember("_meta", meta, a);
  return jsonrpc::notification_line(method, params);
}

const char* list_changed_method(int kind) {
  switch (kind) {
    case 0:
      return "notifications/tools/list_changed";
    case 1:
      return "notifications/prompts/list_changed";
    default:
      return "notifications/resources/list_changed";
  }
}

void send(Connection& to, std::string line) {
  to.send(std::move(line), Outgoing{Outgoing::Kind::kNotification, std::nullopt});
}

}  // namespace

std::optional<ListenFilter> read_listen_filter(const rapidjson::Value* n) {
  ListenFilter f;
  if (!n) return f;
  if (!n->IsObject()) return std::nullopt;
  auto flag = [&](const char* key, bool& out) {
    auto it = n->FindMember(key);
    if (it == n->MemberEnd()) return true;
    if (!it->value.IsBool()) return false;
    out = it->value.GetBool();
    return true;
  };
  if (!flag("toolsListChanged", f.tools) || !flag("promptsListChanged", f.prompts) ||
      !flag("resourcesListChanged", f.resources))
    return std::nullopt;
  auto strings = [&](const char* key, std::vector<std::string>& out) {
    auto it = n->FindMember(key);
    if (it == n->MemberEnd()) return true;
    if (!it->value.IsArray()) return false;
    for (const auto& s : it->value.GetArray()) {
      if (!s.IsString()) return false;
      out.emplace_back(s.GetString(), s.GetStringLength());
    }
    return true;
  };
  if (!strings("resourceSubscriptions", f.uris) || !strings("taskIds", f.task_ids))
    return std::nullopt;
  return f;
}

void Subscriptions::listen(const ConnectionPtr& connection, Exchange exchange, ListenFilter filter,
                           const ListChanges& offered) {
  const jsonrpc::RequestId id = *exchange.id;
  filter.tools = filter.tools && offered.tools;
  filter.prompts = filter.prompts && offered.prompts;
  filter.resources = filter.resources && offered.resources;
  if (!offered.uris) filter.uris.clear();
  rapidjson::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  rapidjson::Value honored(rapidjson::kObjectType);
  if (filter.tools) honored.AddMember("toolsListChanged", true, a);
  if (filter.prompts) honored.AddMember("promptsListChanged", true, a);
  if (filter.resources) honored.AddMember("resourcesListChanged", true, a);
  if (!filter.uris.empty()) {
    rapidjson::Value uris(rapidjson::kArrayType);
    for (const auto& u : filter.uris) uris.PushBack(rapidjson::Value(u.c_str(), a), a);
    honored.AddMember("resourceSubscriptions", uris, a);
  }
  if (!filter.task_ids.empty()) {
    rapidjson::Value ids(rapidjson::kArrayType);
    for (const auto& t : filter.task_ids) ids.PushBack(rapidjson::Value(t.c_str(), a), a);
    honored.AddMember("taskIds", ids, a);
  }
  params.AddMember("notifications", honored, a);
  // Registered before the acknowledgment is sent: sending may find the peer gone, which
  // drops the stream again (drop_connection) instead of leaving it behind.
  listens_[CallKey{connection.get(), id}] =
      Listen{connection, std::move(exchange), std::move(filter)};
  send(*connection, tagged("notifications/subscriptions/acknowledged", id, std::move(params)));
}

std::optional<Exchange> Subscriptions::cancel(const CallKey& key) {
  auto it = listens_.find(key);
  if (it == listens_.end()) return std::nullopt;
  Exchange x = std::move(it->second.exchange);
  listens_.erase(it);
  return x;
}

std::vector<Exchange> Subscriptions::drop_connection(const Connection* connection) {
  std::vector<Exchange> ended;
  for (auto it = listens_.begin(); it != listens_.end();) {
    if (it->first.connection != connection) {
      ++it;
      continue;
    }
    ended.push_back(std::move(it->second.exchange));
    it = listens_.erase(it);
  }
  legacy_.erase(connection);
  return ended;
}

void Subscriptions::legacy_connection(const ConnectionPtr& connection) {
  legacy_[connection.get()].connection = connection;
}

void Subscriptions::subscribe(const ConnectionPtr& connection, const std::string& uri) {
  auto& entry = legacy_[connection.get()];
  entry.connection = connection;
  entry.uris.insert(uri);
}

void Subscriptions::unsubscribe(const Connection* connection, const std::string& uri) {
  if (auto it = legacy_.find(connection); it != legacy_.end()) it->second.uris.erase(uri);
}

// Lines are collected first and sent after: sending may find a peer gone (an HTTP client
// that stopped reading), which drops its streams from the maps being walked.
void Subscriptions::deliver(std::vector<std::pair<ConnectionPtr, std::string>> lines) {
  for (auto& [connection, line] : lines) send(*connection, std::move(line));
}

void Subscriptions::lists_changed(const ListChanges& changes) {
  const bool changed[] = {changes.tools, changes.prompts, changes.resources};
  std::vector<std::pair<ConnectionPtr, std::string>> out;
  for (auto it = legacy_.begin(); it != legacy_.end();)
    it = it->second.connection.expired() ? legacy_.erase(it) : std::next(it);
  for (int kind = 0; kind < 3; ++kind) {
    if (!changed[kind]) continue;
    for (auto& [key, l] : listens_) {
      const bool wanted[] = {l.filter.tools, l.filter.prompts, l.filter.resources};
      if (wanted[kind]) out.emplace_back(l.connection, tagged(list_changed_method(kind), l.id()));
    }
    for (auto& [c, entry] : legacy_)
      if (auto connection = entry.connection.lock())
        out.emplace_back(connection,
                         jsonrpc::notification_line(list_changed_method(kind),
                                                    rapidjson::Document(rapidjson::kObjectType)));
  }
  deliver(std::move(out));
}

void Subscriptions::resource_updated(const std::string& uri) {
  auto params_with_uri = [&] {
    rapidjson::Document params(rapidjson::kObjectType);
    params.AddMember("uri", rapidjson::Value(uri.c_str(), params.GetAllocator()),
                     params.GetAllocator());
    return params;
  };
  std::vector<std::pair<ConnectionPtr, std::string>> out;
  for (auto& [key, l] : listens_)
    for (const auto& u : l.filter.uris)
      if (u == uri) {
        out.emplace_back(l.connection,
                         tagged("notifications/resources/updated", l.id(), params_with_uri()));
        break;
      }
  for (auto& [c, entry] : legacy_)
    if (entry.uris.count(uri))
      if (auto connection = entry.connection.lock())
        out.emplace_back(connection, jsonrpc::notification_line("notifications/resources/updated",
                                                                params_with_uri()));
  deliver(std::move(out));
}

bool Subscriptions::watches_task(const std::string& id) const {
  for (const auto& [key, l] : listens_)
    for (const auto& t : l.filter.task_ids)
      if (t == id) return true;
  return false;
}

void Subscriptions::task_changed(const std::string& id, const rapidjson::Document& params) {
  std::vector<std::pair<ConnectionPtr, std::string>> out;
  for (auto& [key, l] : listens_)
    for (const auto& t : l.filter.task_ids)
      if (t == id) {
        rapidjson::Document copy;
        copy.CopyFrom(params, copy.GetAllocator());
        out.emplace_back(l.connection, tagged("notifications/tasks", l.id(), std::move(copy)));
        break;
      }
  deliver(std::move(out));
}

std::vector<Subscriptions::Open> Subscriptions::take_all() {
  std::vector<Open> out;
  for (auto& [key, l] : listens_) out.push_back({l.connection, std::move(l.exchange)});
  listens_.clear();
  return out;
}

}  // namespace mcpsh::mcp
