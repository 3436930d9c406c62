#include "mcp/protocol_core.h"

#include <algorithm>
#include <cstdio>
#include <random>

#include "diagnostics/log.h"
#include "jsonrpc/error_codes.h"
#include "jsonrpc/response.h"
#include "mcp/call_intake.h"
#include "mcp/call_response.h"
#include "mcp/core_request.h"
#include "mcp/function_results.h"
#include "mcp/method_table.h"
#include "mcp/mirrored_headers.h"
#include "mcp/protocol_versions.h"
#include "sandbox/sandbox.h"

namespace mcpsh::mcp {

using jsonrpc::Message;

ProtocolCore::ProtocolCore(const discovery::Catalog& catalog, execution::CallRunner& runner,
                           CoreOptions options, WakeupSource& time, diagnostics::Log& log,
                           Audit audit)
    : runner_(runner),
      options_(std::move(options)),
      time_(time),
      log_(log),
      audit_(std::move(audit)),
      offering_(std::make_shared<Offering>(catalog, options_.resource_dirs, options_.live,
                                           options_.page_size, options_.offering_memo.get())),
      notifier_(log),
      tasks_(options_.max_tasks, options_.task_ttl),
      // The hooks reach this core; they live in the scheduler's state, which this core
      // owns and the runner's callbacks only reference weakly.
      scheduler_(runner, options_.max_concurrency, options_.heartbeat, time,
                 SchedulerHooks{
                     [this](Call& c, execution::Outcome o) { finished(c, std::move(o)); },
                     [this](Call& c, const char* why) {
                       forget_asks(c);
                       cancelled(c.exchange, *c.connection, why);
                       task_dropped(c);
                     },
                     [this](Call& c, const execution::ChannelEvent& e) {
                       if (auto* q = std::get_if<execution::AskEvent>(&e); q && c.launch.replies)
                         return ask_client(c, *q);
                       if (auto* o = std::get_if<execution::OversizedContentEvent>(&e);
                           o && o->kind == "ask")
                         return question_too_large(c, o->bytes);
                       if (auto* t = std::get_if<execution::TaskEvent>(&e))
                         return make_task(c, t->message);
                       notifier_.on_event(c, e, time_.now());
                     },
                     [this](Call& c, std::string line) { notifier_.on_stderr_line(c, line); },
                     [this](Call& c) { notifier_.heartbeat(c, time_.now()); },
                     [this](Call& c) { make_task(c, ""); },
                 }) {
  if (!options_.sealer)
    options_.sealer = std::make_shared<const asking::StateSealer>(asking::StateSealer::random());
  std::random_device random;
  char hex[20];
  std::snprintf(hex, sizeof hex, "%08x%08x", random(), random());
  ask_id_prefix_ = std::string("mcp-shell-host-") + hex + "-";
}

// ---- the answer path --------------------------------------------------------------------

void ProtocolCore::answer(Connection& to, const Exchange& x, std::string line, AuditRecord facts) {
  facts.bytes_out = line.size() + 1;
  Outgoing what{Outgoing::Kind::kResponse, facts.error_code};
  to.send(std::move(line), what);
  facts.remote = to.remote;
  facts.http_status = to.last_status();
  if (audit_) audit_(audit_record(x, std::move(facts), time_.now()));
}

void ProtocolCore::refuse(Connection& to, const Exchange& x, int code, const std::string& message,
                          const rapidjson::Value* data) {
  AuditRecord facts;
  facts.error_code = code;
  facts.error_message = message;
  answer(to, x, jsonrpc::error_line(x.id, code, message, data), std::move(facts));
}

void ProtocolCore::unanswered(const Exchange& x, AuditRecord facts) {
  if (audit_) audit_(audit_record(x, std::move(facts), time_.now()));
}

void ProtocolCore::finished(Call& call, execution::Outcome outcome) {
  forget_asks(call);
  if (answer_asks(call, outcome)) return;
  if (call.kind != CallKind::kTool) return finished_function(call, std::move(outcome));
  ShapedResult shaped =
      shape_tool_result(call.tool->entry.name, outcome, call.launch.limits,
                        call.tool->output ? &*call.tool->output : nullptr, call.content);
  AuditRecord facts = run_facts(call, outcome);
  facts.is_error = shaped.is_error;
  facts.outcome = shaped.outcome;
  answer(*call.connection, call.exchange,
         call_result_line(*call.exchange.id, call.exchange.meta, shaped, call.offering->profile),
         std::move(facts));
}

AuditRecord ProtocolCore::run_facts(const Call& call, const execution::Outcome& outcome) {
  AuditRecord facts;
  if (const auto& box = call.launch.confinement.sandbox) facts.sandbox = box->description();
  if (outcome.ending == execution::Ending::kExited) facts.exit_status = outcome.exit_code;
  if (outcome.signal) facts.signal = outcome.signal;
  facts.stdout_bytes = outcome.stdout_total;
  facts.timed_out = outcome.ending == execution::Ending::kTimedOut;
  facts.truncated = outcome.stdout_truncated();
  return facts;
}

void ProtocolCore::cancelled(const Exchange& x, const Connection& from, const char* why) {
  AuditRecord facts;
  facts.outcome = why;
  facts.cancelled = true;
  facts.remote = from.remote;
  unanswered(x, std::move(facts));
}

void ProtocolCore::disconnected(const ConnectionPtr& connection) {
  scheduler_.cancel_connection(connection.get());
  stop_waiting(connection.get(), nullptr);
  for (auto& x : subscriptions_.drop_connection(connection.get()))
    cancelled(x, *connection, "cancelled");
}

// ---- dispatch ---------------------------------------------------------------------------

// Built member by member: GCC 12 at -O3 takes the aggregate's temporary string members for
// uninitialized (-Wmaybe-uninitialized, a false positive).
void ProtocolCore::refuse_unparsed(Connection& to, const Message& m, Clock::time_point received,
                                   std::size_t size) {
  Exchange x;
  x.id = m.id;
  x.received = received;
  x.bytes_in = size;
  refuse(to, x, m.error_code, m.error_message);
}

void ProtocolCore::oversized(const ConnectionPtr& from, std::size_t size) {
  std::string message = "Invalid Request: message of " + std::to_string(size) +
                        " bytes exceeds the maximum line size";
  log_.warning(message);
  Exchange x;  // no id, no method: refused before either was known
  x.received = time_.now();
  x.bytes_in = size;
  refuse(*from, x, jsonrpc::kInvalidRequest, message);
}

Handled ProtocolCore::handle(const ConnectionPtr& from, std::string line) {
  const Clock::time_point received = time_.now();
  const std::size_t size = line.size();  // the JSON text (stdio's newline not counted)
  Message m = jsonrpc::parse_owned_message(std::move(line));
  switch (m.kind) {
    case Message::Kind::kIgnored:
      log_.info("ignored a message: " + m.error_message);
      return Handled::kNoResponse;
    case Message::Kind::kError:
      log_.info("rejected a message: " + m.error_message);
      refuse_unparsed(*from, m, received, size);
      return Handled::kAnswered;
    case Message::Kind::kNotification:
      on_notification(from, m);
      return Handled::kNoResponse;
    case Message::Kind::kResponse:
      on_response(from, m);
      return Handled::kNoResponse;
    case Message::Kind::kRequest:
      break;
  }
  Exchange x{m.id, m.method, {}, received};
  x.bytes_in = size;
  const CallKey key{from.get(), *m.id};
  // An id in use by a call in flight is refused whatever the method, so that no other
  // result is ever sent for that id while the call runs.
  if (scheduler_.busy(key) || subscriptions_.listening(key) || waiting_for_task(key)) {
    refuse(*from, x, jsonrpc::kInvalidRequest,
           "Invalid Request: id " + m.id->json + " is already in use by a call in progress");
    return Handled::kAnswered;
  }
  bool modern_over_http = false;
  if (from->mirrored) {
    auto era = mirrored_era(*from->mirrored, m.method, m.params);
    if (auto* no = std::get_if<HeaderRefusal>(&era)) {
      refuse_headers(*from, x, *no);
      return Handled::kAnswered;
    }
    if (auto* legacy = std::get_if<StatelessLegacy>(&era); legacy && !from->legacy)
      from->legacy = stateless_session(legacy->version);
    modern_over_http = std::holds_alternative<ModernEra>(era);
  }
  auto routed = route(m.method, m.params, from->legacy);
  if (auto* no = std::get_if<Refusal>(&routed)) {
    if (!no->requested) {
      refuse(*from, x, no->code, no->message);
      return Handled::kAnswered;
    }
    x.meta.protocol_version = *no->requested;
    auto data = unsupported_version_data(*no->requested);
    refuse(*from, x, no->code, no->message, &data);
    return Handled::kAnswered;
  }
  auto& route = std::get<Route>(routed);
  x.meta = std::move(route.meta);
  if (modern_over_http) {
    auto header_params = [this](std::string_view tool) -> const std::vector<HeaderParam>* {
      const auto* found = offering_->tools.find(tool);
      return found ? &found->header_params : nullptr;
    };
    if (auto no = check_mirrored_body(*from->mirrored, m.method, m.params, header_params)) {
      refuse_headers(*from, x, *no);
      return Handled::kAnswered;
    }
  }
  Request r{from, std::move(x), route.method->id, std::move(m.document), m.params};
  dispatch(r);
  // Every method but an accepted call, a listen request or a tasks/result of a task that
  // runs answers at once.
  return scheduler_.busy(key) || subscriptions_.listening(key) || waiting_for_task(key)
             ? Handled::kPending
             : Handled::kAnswered;
}

void ProtocolCore::dispatch(Request& r) {
  auto ok = [&](const std::string& result_json) {
    AuditRecord facts;
    facts.outcome = "ok";
    answer(*r.from, r.exchange, jsonrpc::result_line_raw(*r.exchange.id, result_json),
           std::move(facts));
  };
  switch (r.method) {
    case MethodId::kInitialize:
      return handle_initialize(r);
    case MethodId::kDiscover:
      return ok(offering_->discover_result);
    case MethodId::kToolsList:
      handle_list(r, r.exchange.meta.legacy
                         ? offering_->legacy_tool_list(r.exchange.meta.protocol_version)
                         : offering_->tool_list);
      return warm_once();
    case MethodId::kToolsCall:
      return handle_tools_call(r);
    case MethodId::kPing:
      return ok("{}");
    case MethodId::kSetLevel:
      return handle_set_level(r);
    case MethodId::kResourcesList:
      return handle_list(r, offering_->resource_list);
    case MethodId::kResourceTemplatesList:
      return handle_list(r, offering_->template_list);
    case MethodId::kResourcesRead:
      return handle_read(r);
    case MethodId::kPromptsList:
      return handle_list(r, offering_->prompt_list);
    case MethodId::kPromptsGet:
      return handle_prompt(r);
    case MethodId::kComplete:
      return handle_complete(r);
    case MethodId::kListen:
      return handle_listen(r);
    case MethodId::kSubscribe:
      return handle_subscribe(r, true);
    case MethodId::kUnsubscribe:
      return handle_subscribe(r, false);
    case MethodId::kTasksGet:
      return handle_tasks_get(r);
    case MethodId::kTasksUpdate:
      return handle_tasks_update(r);
    case MethodId::kTasksCancel:
      return handle_tasks_cancel(r);
    case MethodId::kTasksResult:
      return handle_tasks_result(r);
    case MethodId::kTasksList:
      return handle_tasks_list(r);
  }
}

void ProtocolCore::on_notification(const ConnectionPtr& from, const Message& m) {
  if (m.method == "notifications/cancelled") {
    if (!m.params) return;
    auto it = m.params->FindMember("requestId");
    if (it == m.params->MemberEnd()) return;
    if (auto id = jsonrpc::to_request_id(it->value)) {
      // A cancelled listen stream gets no answer, as a cancelled call does not.
      if (auto x = subscriptions_.cancel(CallKey{from.get(), *id}))
        return cancelled(*x, *from, "cancelled");
      if (stop_waiting(from.get(), &*id)) return;
      scheduler_.cancel(CallKey{from.get(), *id});
    }
    return;
  }
  log_.debug("notification " + m.method);
}

// ---- methods ----------------------------------------------------------------------------

// Negotiates a legacy revision for this connection: the one asked for when we know it,
// else the newest we have (the client then decides whether it can speak that).
void ProtocolCore::handle_initialize(Request& r) {
  const rapidjson::Value* params = r.params;
  auto version =
      params ? params->FindMember("protocolVersion") : rapidjson::Value::ConstMemberIterator();
  if (!params || version == params->MemberEnd() || !version->value.IsString())
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  "Invalid params: \"protocolVersion\" (a string) is required");
  std::string asked = version->value.GetString();
  std::string chosen = is_legacy_version(asked) ? asked : std::string(kLegacyVersions[0]);
  LegacySession session{chosen, std::nullopt, ""};
  if (auto info = params->FindMember("clientInfo");
      info != params->MemberEnd() && info->value.IsObject()) {
    auto name = info->value.FindMember("name");
    if (name != info->value.MemberEnd() && name->value.IsString())
      session.client_name.assign(name->value.GetString(), name->value.GetStringLength());
  }
  if (auto caps = params->FindMember("capabilities"); caps != params->MemberEnd())
    session.client_capabilities = answerable_capabilities(caps->value);
  r.exchange.meta.protocol_version = chosen;
  r.exchange.meta.client_name = session.client_name;
  session.from_initialize = true;
  r.from->legacy = std::move(session);
  // A connection that lasts (stdio) hears of list changes; an HTTP exchange ends with its
  // answer.
  if (!r.from->mirrored) subscriptions_.legacy_connection(r.from);
  log_.info("initialize: client asked for " + asked + ", serving legacy revision " + chosen);
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange,
         jsonrpc::result_line_raw(*r.exchange.id, offering_->profile.initialize_result_json(
                                                      chosen, r.from->mirrored.has_value())),
         std::move(facts));
}

// Over stateless HTTP the session is the request's own and ends with it: the level is
// checked and acknowledged, and has no effect on later requests (each of which is served
// at stateless_session's level).
void ProtocolCore::handle_set_level(Request& r) {
  auto level = r.params ? r.params->FindMember("level") : rapidjson::Value::ConstMemberIterator();
  std::optional<LogLevel> parsed;
  if (r.params && level != r.params->MemberEnd() && level->value.IsString())
    parsed = parse_log_level(level->value.GetString());
  if (!parsed)
    return refuse(*r.from, r.exchange, jsonrpc::kInvalidParams,
                  "Invalid params: \"level\" must be one of debug, info, notice, warning, error, "
                  "critical, alert, emergency");
  r.from->legacy->log_level = parsed;
  AuditRecord facts;
  facts.outcome = "ok";
  answer(*r.from, r.exchange, jsonrpc::result_line_raw(*r.exchange.id, "{}"), std::move(facts));
}

void ProtocolCore::handle_tools_call(Request& r) {
  auto taken = take_call(r.params, offering_->tools, options_.limits, r.exchange);
  if (auto* no = std::get_if<CallRefusal>(&taken))
    return refuse(*r.from, r.exchange, no->code, no->message);
  if (auto* invalid = std::get_if<ShapedResult>(&taken)) {
    AuditRecord facts;
    facts.is_error = invalid->is_error;
    facts.outcome = invalid->outcome;
    return answer(*r.from, r.exchange,
                  call_result_line(*r.exchange.id, r.exchange.meta, *invalid, offering_->profile),
                  std::move(facts));
  }
  auto& plan = std::get<CallPlan>(taken);
  auto call = std::make_shared<Call>();
  const rapidjson::Value* arguments = nullptr;
  if (auto it = r.params->FindMember("arguments"); it != r.params->MemberEnd())
    arguments = &it->value;
  bool task_asked = false;
  if (refuse_untasked(r, plan.tool->entry, task_asked)) return;
  // A client that asked for a task gets one or an error, never a plain answer later.
  if (task_asked && tasks_.full(time_.now()))
    return refuse(*r.from, r.exchange, jsonrpc::kInternalError,
                  "Internal error: " + std::to_string(tasks_.size()) +
                      " tasks are kept (--max-tasks); try again once some have ended");
  if (!open_round(r, *call, plan.tool->entry.name, arguments)) return;
  call->confirm = confirmation(plan.tool->entry, arguments);
  // The arguments are serialized into the plan: the parsed line (as large as the payload)
  // goes now rather than when the request is done with.
  r.params = nullptr;
  r.document.reset();
  call->connection = r.from;
  call->exchange = std::move(r.exchange);
  call->tool = plan.tool;
  call->offering = offering_;
  call->launch = std::move(plan.launch);
  offer_task(*call, task_asked);
  give_inputs(*call);
  const bool may_become_task = call->task_seed != nullptr;
  scheduler_.submit(call);
  if (may_become_task) {
    if (task_asked || options_.task_after.count() <= 0)
      make_task(*call, "");
    else
      scheduler_.rearm();
  }
  warm_once();
}

// ---- the HTTP side of the eras ------------------------------------------------------------

void ProtocolCore::refuse_headers(Connection& to, Exchange& x, const HeaderRefusal& no) {
  if (!no.requested) return refuse(to, x, no.code, no.message);
  x.meta.protocol_version = *no.requested;
  auto data = unsupported_version_data(*no.requested);
  refuse(to, x, no.code, no.message, &data);
}

// A legacy client over stateless HTTP cannot keep a logging/setLevel from one request to
// the next, and the legacy revisions let a server log without one: its requests get every
// notifications/message the tool sends (the conformance suite's tools-call-with-logging at
// 2025-11-25 sets "debug" on one request and expects the tool's info messages on the next).
LegacySession ProtocolCore::stateless_session(const std::string& version) {
  return LegacySession{version, LogLevel::kDebug, ""};
}

void ProtocolCore::warm_once() {
  if (!warm_wanted_ || warmed_) return;
  warmed_ = true;
  runner_.warm(offering_->warm_targets);
}

}  // namespace mcpsh::mcp
