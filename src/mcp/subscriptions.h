#pragma once
// Who is told when what the scripts offer changes, in both eras:
//  - modern (2026-07-28): a subscriptions/listen request opens a stream on its connection.
//    It is acknowledged at once, then gets only the notification kinds its filter asked
//    for, each tagged with its subscriptionId (the request's id) in _meta. It ends when the
//    client cancels it (notifications/cancelled, or closing the HTTP stream), or when the
//    host stops: then it gets a result (graceful closure), from the core's answer path.
//  - legacy: a connection that opened the era with initialize (stdio) gets the
//    list_changed notifications; resources/subscribe adds a URI it gets
//    notifications/resources/updated for.
// Single-threaded (the core's). Holds connections strongly only for open listen requests
// (each is a request in flight); legacy connections weakly.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mcp/call.h"
#include "mcp/connection.h"

namespace mcpsh::mcp {

// What a subscriptions/listen request asked for (its "notifications" object).
struct ListenFilter {
  bool tools = false, prompts = false, resources = false;
  std::vector<std::string> uris;  // resourceSubscriptions
  // taskIds (the tasks extension): notifications/tasks for these tasks. The core keeps
  // only the ids of tasks the listening client made.
  std::vector<std::string> task_ids;
};

// Which lists changed in a reload.
struct ListChanges {
  bool tools = false, prompts = false, resources = false;
  bool uris = false;  // for listen: resources/updated can be honored (resourceSubscriptions)
  bool any() const { return tools || prompts || resources; }
};

class Subscriptions {
 public:
  // Opens a listen stream and sends its acknowledgment (the filter it honors: `offered`
  // says which kinds exist at all).
  // `exchange` is the listen request's (its id set): its closing result is audited with it.
  void listen(const ConnectionPtr& connection, Exchange exchange, ListenFilter filter,
              const ListChanges& offered);
  bool listening(const CallKey& key) const { return listens_.count(key) > 0; }
  // The client cancelled it (no answer follows): its exchange, for the audit; nullopt when
  // no such stream is open.
  std::optional<Exchange> cancel(const CallKey& key);
  // The connection is gone: the exchanges of its listen streams, which end unanswered.
  std::vector<Exchange> drop_connection(const Connection* connection);

  void legacy_connection(const ConnectionPtr& connection);
  void subscribe(const ConnectionPtr& connection, const std::string& uri);
  void unsubscribe(const Connection* connection, const std::string& uri);

  void lists_changed(const ListChanges& changes);
  void resource_updated(const std::string& uri);
  // A task changed: `params` (the task as tasks/get shows it) goes to the streams that
  // listen for it, as notifications/tasks.
  bool watches_task(const std::string& id) const;
  void task_changed(const std::string& id, const rapidjson::Document& params);

  // Every open listen stream, removed: the caller answers each (graceful closure).
  struct Open {
    ConnectionPtr connection;
    Exchange exchange;
  };
  std::vector<Open> take_all();
  std::size_t open() const { return listens_.size(); }

 private:
  struct Listen {
    ConnectionPtr connection;
    Exchange exchange;
    ListenFilter filter;
    const jsonrpc::RequestId& id() const { return *exchange.id; }
  };
  struct Legacy {
    std::weak_ptr<Connection> connection;
    std::set<std::string> uris;
  };
  void deliver(std::vector<std::pair<ConnectionPtr, std::string>> lines);

  std::map<CallKey, Listen> listens_;
  std::map<const Connection*, Legacy> legacy_;
};

// The "notifications" object of a subscriptions/listen request; nullopt when it is not
// an object of the documented fields (their types checked).
std::optional<ListenFilter> read_listen_filter(const rapidjson::Value* notifications);

}  // namespace mcpsh::mcp
