// ProtocolCore's side of tools that ask (MCP 2026-07-28 multi round-trip requests; ADR
// 0014): a request's answers in, a run's questions out as an input_required result.
#include <chrono>

#include "diagnostics/log.h"
#include "jsonrpc/error_codes.h"
#include "jsonrpc/response.h"
#include "mcp/call_response.h"
#include "mcp/core_request.h"
#include "mcp/protocol_core.h"

namespace mcpsh::mcp {

namespace {

// The key of @confirm's question (tool_launch.h).
constexpr const char* kConfirmKey = "mcp-shell-host:confirm";

std::int64_t unix_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const char* method_of(CallKind kind) {
  switch (kind) {
    case CallKind::kTool:
      return "tools/call";
    case CallKind::kResource:
      return "resources/read";
    case CallKind::kPrompt:
      return "prompts/get";
    case CallKind::kCompletion:
      break;
  }
  return "completion/complete";
}

// What the client declared, as a set of names.
bool declared(const std::string& capabilities, const char* name) {
  return ("," + capabilities + ",").find("," + std::string(name) + ",") != std::string::npos;
}

}  // namespace

bool ProtocolCore::open_round(Request& r, Call& call, const std::string& target,
                              const rapidjson::Value* arguments) {
  // Only modern requests of the three methods the spec names may carry answers; a legacy
  // client's inputResponses mean nothing to it (nor to us).
  if (r.exchange.meta.legacy || call.kind == CallKind::kCompletion) return true;
  // The digest binds a state to these arguments: it is needed to open a state, or to seal
  // one, which only a client that can answer something ever gets (answer_asks refuses the
  // others with -32021 first). Otherwise a large payload is not hashed for nothing.
  const bool has_state = r.params && r.params->IsObject() && r.params->HasMember("requestState");
  const bool may_seal = !r.exchange.meta.client_capabilities.empty();
  call.round = {method_of(call.kind), target,
                has_state || may_seal ? asking::arguments_digest(arguments) : std::string(),
                r.exchange.meta.client_name};
  auto read = asking::read_round(r.params, call.round, *options_.sealer, unix_now());
  if (auto* no = std::get_if<asking::RoundProblem>(&read)) {
    refuse(*r.from, r.exchange, jsonrpc::kInvalidParams, no->message);
    return false;
  }
  call.answers = std::move(std::get<asking::Answers>(read));
  return true;
}

void ProtocolCore::give_inputs(Call& call) const {
  if (call.kind == CallKind::kCompletion) return;
  call.launch.client_capabilities = call.exchange.meta.client_capabilities;
  if (call.exchange.meta.legacy) {
    // A legacy client is asked with requests of the host's own, answered on the same
    // connection or session: possible on stdio, and over HTTP in a session (Mcp-Session-Id)
    // whose client hears the POST's event stream; not over stateless HTTP (nothing holds the
    // client's capabilities, and its answer could not be matched to the question), nor for
    // a task over HTTP (its POST has been answered: the question would have nowhere to go).
    const Connection& c = *call.connection;
    const bool task = call.task_seed || !call.task_id.empty();
    call.launch.replies = !c.mirrored || (!c.session_id.empty() && c.hears_requests && !task);
  } else {
    call.launch.inputs = asking::tool_input_lines(call.answers, call.launch.input_count);
  }
  if (!call.confirm.empty()) {
    call.launch.inputs = asking::confirm_line(call.confirm) + call.launch.inputs;
    ++call.launch.input_count;
  }
}

std::string ProtocolCore::confirmation(const discovery::ToolEntry& tool,
                                       const rapidjson::Value* arguments) const {
  std::string message = tool.confirm;
  if (message.empty() && options_.confirm_destructive && tool.destructive)
    message = "Run the tool " + tool.name + " with " +
              (arguments ? jsonrpc::to_json(*arguments) : std::string("{}")) + "?";
  return asking::fill_placeholders(message, arguments);
}

bool ProtocolCore::answer_asks(Call& call, const execution::Outcome& outcome) {
  if (call.asks.empty() && call.ask_mistake.empty()) return false;
  const Exchange& x = call.exchange;
  AuditRecord facts = run_facts(call, outcome);
  // The call cannot end as asked: a tool gets an isError result the model can read, the
  // other methods (which have no such result) an error.
  auto fail = [&](const std::string& why) {
    if (call.kind == CallKind::kTool) {
      ShapedResult shaped = error_result(why, "asked");
      facts.is_error = true;
      facts.outcome = "asked";
      answer(*call.connection, x, call_result_line(*x.id, x.meta, shaped, call.offering->profile),
             std::move(facts));
      return;
    }
    facts.outcome = "asked";
    facts.error_code = jsonrpc::kInternalError;
    facts.error_message = why;
    answer(*call.connection, x, jsonrpc::error_line(x.id, jsonrpc::kInternalError, why),
           std::move(facts));
  };
  if (!call.ask_mistake.empty()) {
    fail(call.label() + ": " + call.ask_mistake);
    return true;
  }
  const auto& first = call.asks.front();
  if (x.meta.legacy || call.kind == CallKind::kCompletion) {
    fail(call.label() + " asked the client for input (" + asking::ask_kind_name(first.kind) +
         " \"" + first.key + "\"); " +
         (call.kind == CallKind::kCompletion
              ? std::string("completion functions cannot ask")
              : "a client of " + x.meta.protocol_version +
                    " over HTTP can be asked only in the session its initialize opened "
                    "(Mcp-Session-Id), with an event stream it reads, and not for a task: "
                    "use MCP 2026-07-28 or stdio otherwise"));
    return true;
  }
  rapidjson::Document result(rapidjson::kObjectType);
  auto& a = result.GetAllocator();
  // Never ask what the client did not declare it can answer (-32021, naming all of it).
  rapidjson::Value missing(rapidjson::kObjectType);
  std::string missing_names;
  for (const auto& ask : call.asks) {
    const char* capability = asking::capability_of(ask.kind);
    if (declared(x.meta.client_capabilities, capability) || missing.HasMember(capability)) continue;
    missing.AddMember(rapidjson::StringRef(capability), rapidjson::Value(rapidjson::kObjectType),
                      a);
    missing_names += (missing_names.empty() ? "" : ", ") + std::string(capability);
  }
  if (!missing_names.empty() && call.asks.size() == 1 && call.asks[0].key == kConfirmKey) {
    fail(call.label() + " runs only once the user confirms, and this client cannot ask the " +
         "user (it did not declare the elicitation capability)");
    return true;
  }
  if (!missing_names.empty()) {
    rapidjson::Document data(rapidjson::kObjectType);
    data.AddMember("requiredCapabilities", rapidjson::Value(missing, data.GetAllocator()),
                   data.GetAllocator());
    const std::string message =
        "Missing required client capability: " + call.label() + " needs " + missing_names;
    facts.outcome = "asked";
    facts.error_code = jsonrpc::kMissingClientCapability;
    facts.error_message = message;
    answer(*call.connection, x,
           jsonrpc::error_line(x.id, jsonrpc::kMissingClientCapability, message, &data),
           std::move(facts));
    return true;
  }
  rapidjson::Value requests(rapidjson::kObjectType);
  for (const auto& ask : call.asks)
    if (auto mistake = asking::add_input_request(requests, ask, a)) {
      fail(call.label() + ": " + *mistake);
      return true;
    }
  result.AddMember("resultType", "input_required", a);
  result.AddMember("inputRequests", requests, a);
  const auto expires = unix_now() + options_.state_ttl.count();
  const std::string state = asking::seal_round(call.round, call.answers, *options_.sealer, expires);
  result.AddMember("requestState", rapidjson::Value(state.c_str(), a), a);
  call.offering->profile.add_server_info(result);
  facts.outcome = "input_required";
  answer(*call.connection, x, jsonrpc::result_line(*x.id, result), std::move(facts));
  return true;
}

// ---- the legacy era: the host's own requests --------------------------------------------

void ProtocolCore::ask_client(Call& call, const execution::AskEvent& e) {
  if (!call.run) return;
  // The run ends (its helper reads "end"): the reason becomes the call's isError result.
  auto end = [&](const std::string& why) {
    if (call.ask_mistake.empty()) call.ask_mistake = why;
    runner_.reply(*call.run, asking::end_line(asking::valid_key(e.key) ? e.key : "-"));
  };
  std::string why;
  auto ask = CallNotifier::ask_of(e, why);
  if (!ask) return end(why);
  // Asked again (from a $( ) that could not keep the answer): answered from the call.
  if (auto known = call.answers.find(ask->key); known != call.answers.end()) {
    std::size_t n = 0;
    if (!runner_.reply(*call.run, asking::tool_input_lines({*known}, n)))
      end("the answer to \"" + ask->key + "\" does not fit the tool's pipe");
    return;
  }
  const char* capability = asking::capability_of(ask->kind);
  if (!declared(call.exchange.meta.client_capabilities, capability))
    return end(ask->key == kConfirmKey
                   ? call.label() +
                         " runs only once the user confirms, and this client cannot "
                         "ask the user (it did not declare the elicitation capability)"
                   : call.label() + " needs the client's " + capability +
                         " capability, which this client did not declare");
  rapidjson::Document request(rapidjson::kObjectType);
  auto& a = request.GetAllocator();
  rapidjson::Value holder(rapidjson::kObjectType);
  if (auto mistake = asking::add_input_request(holder, *ask, a))
    return end(call.label() + ": " + *mistake);
  rapidjson::Value& made = holder.MemberBegin()->value;
  made["params"].EraseMember("mode");  // form is the default; 2025-06-18 has no mode
  const std::string id = ask_id_prefix_ + std::to_string(++asks_sent_);
  request.AddMember("jsonrpc", "2.0", a);
  request.AddMember("id", rapidjson::Value(id.c_str(), a), a);
  request.AddMember("method", made["method"], a);
  request.AddMember("params", made["params"], a);
  pending_asks_["\"" + id + "\""] = PendingAsk{call.weak_from_this(), ask->key, ask->kind};
  call.connection->send(jsonrpc::to_json(request), Outgoing{Outgoing::Kind::kRequest, {}});
}

void ProtocolCore::on_response(const ConnectionPtr& from, const jsonrpc::Message& m) {
  auto it = pending_asks_.find(m.id->json);
  if (it == pending_asks_.end()) {
    log_.info("ignored a response to no request of this host's: id " + m.id->json);
    return;
  }
  auto call = it->second.call.lock();
  // The answer comes where the question went: the call's connection, or for a task's run
  // (2025-11-25) the connection its call came from; over HTTP, any connection of the same
  // session (the answer is another POST). One from elsewhere leaves the question open.
  Task* task = call && !call->task_id.empty() ? tasks_.get(call->task_id) : nullptr;
  auto asked_where = [&](const Connection* asked) {
    return asked == from.get() ||
           (asked && !asked->session_id.empty() && asked->session_id == from->session_id);
  };
  if (call && !asked_where(task ? task->origin.lock().get() : call->connection.get())) {
    log_.info("ignored a response from another connection: id " + m.id->json);
    return;
  }
  PendingAsk pending = std::move(it->second);
  pending_asks_.erase(it);
  if (!call || !call->run || call->cancelled) return;
  if (task) task_answered(*task);
  const rapidjson::Document& d = *m.document;
  std::string line;
  if (auto error = d.FindMember("error"); error != d.MemberEnd()) {
    std::string message = "the client refused";
    if (error->value.IsObject())
      if (auto text = error->value.FindMember("message");
          text != error->value.MemberEnd() && text->value.IsString())
        message += ": " + std::string(text->value.GetString(), text->value.GetStringLength());
    line = asking::error_line(pending.key, message);
  } else {
    const std::string json = jsonrpc::to_json(d["result"]);
    const std::string want = pending.kind == asking::AskKind::kSample  ? "sample"
                             : pending.kind == asking::AskKind::kRoots ? "roots"
                                                                       : "elicit";
    if (asking::shape_of_response(json) != want) {
      line = asking::error_line(pending.key, "the client's answer is not the result of " +
                                                 std::string(asking::ask_kind_name(pending.kind)));
    } else {
      call->answers[pending.key] = json;
      std::size_t n = 0;
      line = asking::tool_input_lines({{pending.key, json}}, n);
    }
  }
  if (!runner_.reply(*call->run, line)) {
    if (call->ask_mistake.empty())
      call->ask_mistake = "the answer to \"" + pending.key + "\" does not fit the tool's pipe";
    runner_.reply(*call->run, asking::end_line(pending.key));
  }
}

void ProtocolCore::question_too_large(Call& call, std::uint64_t bytes) {
  if (call.ask_mistake.empty())
    call.ask_mistake = "a question of " + std::to_string(bytes) +
                       " bytes is over the output limit (--max-output); ask with less";
  // A waiting tool reads a line that is no answer to it, and its run ends.
  if (call.launch.replies && call.run) runner_.reply(*call.run, asking::end_line("-"));
}

void ProtocolCore::forget_asks(const Call& call) {
  for (auto it = pending_asks_.begin(); it != pending_asks_.end();) {
    auto owner = it->second.call.lock();
    if (owner && owner.get() != &call) {
      ++it;
      continue;
    }
    if (owner && !call.connection->mirrored) {
      rapidjson::Document params(rapidjson::kObjectType);
      auto& a = params.GetAllocator();
      rapidjson::Document id;
      id.Parse(it->first.c_str(), it->first.size());
      params.AddMember("requestId", rapidjson::Value(id, a), a);
      params.AddMember("reason", "the call that asked has ended", a);
      call.connection->send(jsonrpc::notification_line("notifications/cancelled", params),
                            Outgoing{Outgoing::Kind::kNotification, {}});
    }
    it = pending_asks_.erase(it);
  }
}

}  // namespace mcpsh::mcp
