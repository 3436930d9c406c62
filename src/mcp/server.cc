#include "mcp/server.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <deque>
#include <map>

#include "diagnostics/log.h"
#include "execution/call_runner.h"
#include "execution/tool_launch.h"
#include "jsonrpc/error_codes.h"
#include "jsonrpc/message.h"
#include "jsonrpc/response.h"
#include "mcp/protocol_versions.h"
#include "mcp/request_meta.h"
#include "mcp/server_profile.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_result.h"

namespace mcpsh::mcp {

namespace asio = boost::asio;
using jsonrpc::Message;
using jsonrpc::RequestId;
using Clock = std::chrono::steady_clock;

namespace {

std::chrono::milliseconds since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t);
}

}  // namespace

struct Server::Impl {
  struct Request {
    RequestId id;
    std::string method;
    std::shared_ptr<rapidjson::Document> document;  // owns params
    const rapidjson::Value* params = nullptr;
    RequestMeta meta;
    Clock::time_point received;
  };

  struct Call {
    Request request;
    const RegisteredTool* tool = nullptr;
    std::string arguments_json;
    std::vector<std::string> argument_names;
    execution::Limits limits;
    std::optional<execution::RunId> run;
    bool cancelled = false;
    double last_progress = 0;
    bool progress_sent = false;
    std::optional<double> last_total;
    std::optional<asio::steady_timer> heartbeat;
    Clock::time_point last_report;
  };

  using Handler = void (Impl::*)(Request&);
  struct Method {
    Handler handler;
    bool modern;             // served to requests that carry modern _meta
    bool legacy;             // served after initialize to requests without it
    bool require_supported;  // modern: false = answered whatever version is named
  };

  asio::io_context& io;
  ServerOptions options;
  execution::CallRunner& executor;
  Send send;
  diagnostics::Log& log;
  Audit audit;
  std::vector<discovery::Problem> problems;
  ToolRegistry registry;
  ServerProfileView profile;
  std::string discover_result, list_result;
  std::map<std::string, Method> methods;
  std::map<RequestId, std::shared_ptr<Call>> calls;  // queued or running
  std::deque<std::shared_ptr<Call>> queue;
  std::size_t running = 0;
  std::function<void()> on_idle;
  std::function<void()> on_dequeue;
  // The legacy era: set by initialize for the rest of this stdio process.
  std::optional<std::string> legacy_version;
  std::optional<LogLevel> legacy_log_level;  // logging/setLevel
  std::string legacy_client_name;            // clientInfo.name of initialize, for the audit
  std::string legacy_list_result;

  Impl(asio::io_context& io_, const discovery::Catalog& catalog, execution::CallRunner& calls_,
       ServerOptions options_, Send send_, diagnostics::Log& log_, Audit audit_)
      : io(io_),
        options(std::move(options_)),
        executor(calls_),
        send(std::move(send_)),
        log(log_),
        audit(std::move(audit_)),
        registry(catalog, problems),
        profile(catalog.profile) {
    discover_result = profile.discover_result_json();
    list_result = profile.list_result_json(registry.tools_json());
    methods = {
        {"initialize", {&Impl::handle_initialize, false, false, false}},
        {"server/discover", {&Impl::handle_discover, true, true, false}},
        {"tools/list", {&Impl::handle_tools_list, true, true, true}},
        {"tools/call", {&Impl::handle_tools_call, true, true, true}},
        {"ping", {&Impl::handle_ping, false, true, false}},
        {"logging/setLevel", {&Impl::handle_set_level, false, true, false}},
    };
  }

  // ---- output -------------------------------------------------------------------------

  std::size_t emit(std::string line) {
    std::size_t n = line.size() + 1;
    send(std::move(line));
    return n;
  }

  void finish_audit(AuditRecord& record, Clock::time_point received) {
    record.duration = since(received);
    if (audit) audit(record);
  }

  AuditRecord audit_for(const Request& r) {
    AuditRecord a;
    a.id_json = r.id.json;
    a.method = r.method;
    a.protocol_version = r.meta.protocol_version;
    a.client_name = r.meta.client_name;
    return a;
  }

  void reply_error(const Request& r, int code, const std::string& message,
                   const rapidjson::Value* data = nullptr, AuditRecord* record = nullptr) {
    AuditRecord local = audit_for(r);
    AuditRecord& a = record ? *record : local;
    a.error_code = code;
    a.error_message = message;
    a.bytes_out = emit(jsonrpc::error_line(r.id, code, message, data));
    finish_audit(a, r.received);
  }

  void reply_raw(const Request& r, const std::string& result_json) {
    AuditRecord a = audit_for(r);
    a.outcome = "ok";
    a.bytes_out = emit(jsonrpc::result_line_raw(r.id, result_json));
    finish_audit(a, r.received);
  }

  // ---- dispatch -------------------------------------------------------------------------

  void on_line(std::string_view line) {
    Clock::time_point received = Clock::now();
    Message m = jsonrpc::parse_message(line);
    switch (m.kind) {
      case Message::Kind::kIgnored:
        log.info("ignored a message: " + m.error_message);
        return;
      case Message::Kind::kError: {
        log.info("rejected a message: " + m.error_message);
        std::size_t bytes = emit(jsonrpc::error_line(m.id, m.error_code, m.error_message));
        AuditRecord a;
        a.id_json = m.id ? m.id->json : "";
        a.error_code = m.error_code;
        a.error_message = m.error_message;
        a.bytes_out = bytes;
        finish_audit(a, received);
        return;
      }
      case Message::Kind::kNotification:
        return on_notification(m);
      case Message::Kind::kRequest:
        break;
    }
    Request r{*m.id, m.method, m.document, m.params, {}, received};
    auto method = methods.find(r.method);
    if (method == methods.end())
      return reply_error(r, jsonrpc::kMethodNotFound, "Method not found: " + r.method);
    // initialize opens the legacy era; it carries no modern _meta by definition.
    if (r.method == "initialize") return handle_initialize(r);
    // Dual era: a request with modern _meta is served statelessly at any time; one
    // without it is served under the version initialize negotiated, if any.
    if (!has_modern_meta(r.params) && legacy_version && method->second.legacy) {
      r.meta = legacy_meta(r.params);
      return (this->*(method->second.handler))(r);
    }
    if (!method->second.modern)
      return reply_error(r, jsonrpc::kMethodNotFound,
                         "Method not found: " + r.method + " (not part of MCP " +
                             std::string(kModernVersions[0]) + "; it exists after initialize)");
    auto meta = read_request_meta(r.params, method->second.require_supported);
    if (auto* error = std::get_if<MetaError>(&meta)) {
      if (error->code != jsonrpc::kUnsupportedProtocolVersion)
        return reply_error(r, error->code, error->message);
      rapidjson::Document data(rapidjson::kObjectType);
      auto& a = data.GetAllocator();
      data.AddMember("requested", rapidjson::Value(error->requested->c_str(), a), a);
      rapidjson::Value supported(rapidjson::kArrayType);
      for (auto v : kModernVersions)
        supported.PushBack(
            rapidjson::Value(v.data(), static_cast<rapidjson::SizeType>(v.size()), a), a);
      data.AddMember("supported", supported, a);
      r.meta.protocol_version = *error->requested;
      return reply_error(r, error->code, error->message, &data);
    }
    r.meta = std::get<RequestMeta>(std::move(meta));
    (this->*(method->second.handler))(r);
  }

  void on_notification(const Message& m) {
    if (m.method == "notifications/cancelled") {
      if (!m.params) return;
      auto it = m.params->FindMember("requestId");
      if (it == m.params->MemberEnd()) return;
      if (auto id = jsonrpc::to_request_id(it->value)) cancel(*id);
      return;
    }
    log.debug("notification " + m.method);
  }

  // ---- methods ---------------------------------------------------------------------------

  void handle_discover(Request& r) { reply_raw(r, discover_result); }
  void handle_tools_list(Request& r) {
    reply_raw(r, r.meta.legacy ? legacy_list_result : list_result);
    warm_once();
  }

  // Ready processes are started at the first tools/list or tools/call, not at start-up:
  // start-up stays as fast as it can be (clients such as the TypeScript SDK start a
  // server just to probe it), and a client that lists tools gets them warm for its calls.
  bool warm_wanted = false, warmed = false;
  void warm_once() {
    if (!warm_wanted || warmed) return;
    warmed = true;
    std::vector<std::string> scripts;
    for (std::size_t i = 0; i < registry.size(); ++i) {
      const auto& entry = registry.at(i).entry;
      if (entry.implemented &&
          std::find(scripts.begin(), scripts.end(), entry.script) == scripts.end())
        scripts.push_back(entry.script);
    }
    executor.warm(scripts);
  }

  // ---- the legacy era ----------------------------------------------------------------

  static bool has_modern_meta(const rapidjson::Value* params) {
    if (!params) return false;
    auto meta = params->FindMember("_meta");
    return meta != params->MemberEnd() && meta->value.IsObject() &&
           meta->value.HasMember("io.modelcontextprotocol/protocolVersion");
  }

  RequestMeta legacy_meta(const rapidjson::Value* params) {
    RequestMeta meta;
    meta.legacy = true;
    meta.protocol_version = *legacy_version;
    meta.log_level = legacy_log_level;
    meta.client_name = legacy_client_name;
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

  // Negotiates a legacy revision for this process: the one asked for when we know it,
  // else the newest we have (the client then decides whether it can speak that).
  void handle_initialize(Request& r) {
    const rapidjson::Value* params = r.params;
    auto version =
        params ? params->FindMember("protocolVersion") : rapidjson::Value::ConstMemberIterator();
    if (!params || version == params->MemberEnd() || !version->value.IsString())
      return reply_error(r, jsonrpc::kInvalidParams,
                         "Invalid params: \"protocolVersion\" (a string) is required");
    std::string asked = version->value.GetString();
    std::string chosen = is_legacy_version(asked) ? asked : std::string(kLegacyVersions[0]);
    if (auto info = params->FindMember("clientInfo");
        info != params->MemberEnd() && info->value.IsObject()) {
      auto name = info->value.FindMember("name");
      if (name != info->value.MemberEnd() && name->value.IsString())
        r.meta.client_name = name->value.GetString();
    }
    r.meta.protocol_version = chosen;
    legacy_version = chosen;
    legacy_client_name = r.meta.client_name;
    legacy_list_result =
        ServerProfileView::legacy_list_result_json(registry.tools_json_for(chosen));
    log.info("initialize: client asked for " + asked + ", serving legacy revision " + chosen);
    AuditRecord a = audit_for(r);
    a.outcome = "ok";
    a.bytes_out = emit(jsonrpc::result_line_raw(r.id, profile.initialize_result_json(chosen)));
    finish_audit(a, r.received);
  }

  void handle_ping(Request& r) { reply_raw(r, "{}"); }

  void handle_set_level(Request& r) {
    auto level = r.params ? r.params->FindMember("level") : rapidjson::Value::ConstMemberIterator();
    if (!r.params || level == r.params->MemberEnd() || !level->value.IsString() ||
        !parse_log_level(level->value.GetString()))
      return reply_error(
          r, jsonrpc::kInvalidParams,
          "Invalid params: \"level\" must be one of debug, info, notice, warning, error, "
          "critical, alert, emergency");
    legacy_log_level = parse_log_level(level->value.GetString());
    reply_raw(r, "{}");
  }

  void handle_tools_call(Request& r) {
    AuditRecord a = audit_for(r);
    const rapidjson::Value* params = r.params;
    auto name_it = params ? params->FindMember("name") : rapidjson::Value::ConstMemberIterator();
    if (!params || name_it == params->MemberEnd())
      return reply_error(r, jsonrpc::kInvalidParams, "Invalid params: \"name\" is required",
                         nullptr, &a);
    if (!name_it->value.IsString())
      return reply_error(r, jsonrpc::kInvalidParams, "Invalid params: \"name\" must be a string",
                         nullptr, &a);
    std::string name(name_it->value.GetString(), name_it->value.GetStringLength());
    a.tool = name;
    const rapidjson::Value* arguments = nullptr;
    if (auto it = params->FindMember("arguments"); it != params->MemberEnd()) {
      if (!it->value.IsObject())
        return reply_error(r, jsonrpc::kInvalidParams,
                           "Invalid params: \"arguments\" must be an object", nullptr, &a);
      arguments = &it->value;
    }
    const RegisteredTool* tool = registry.find(name);
    // The old core's wording, so that migrated clients see the same errors.
    if (!tool)
      return reply_error(r, jsonrpc::kInvalidParams, "Tool not found: " + name, nullptr, &a);
    if (!tool->entry.implemented)
      return reply_error(
          r, jsonrpc::kInvalidParams,
          "Tool not found: " + name + " (advertised, but no function tool_" + name + " is defined)",
          nullptr, &a);
    if (calls.count(r.id))
      return reply_error(
          r, jsonrpc::kInvalidRequest,
          "Invalid Request: id " + r.id.json + " is already in use by a call in progress", nullptr,
          &a);

    auto call = std::make_shared<Call>();
    call->tool = tool;
    if (arguments) {
      call->arguments_json = jsonrpc::to_json(*arguments);
      for (const auto& member : arguments->GetObject())
        call->argument_names.emplace_back(member.name.GetString());
    } else {
      call->arguments_json = "{}";
    }
    if (tool->input) {
      static const rapidjson::Value kEmpty(rapidjson::kObjectType);
      auto violations = tool->input->validate(arguments ? *arguments : kEmpty);
      if (!violations.empty()) {
        ShapedResult shaped = error_result(
            "Invalid arguments for tool '" + name + "':\n" + schema::describe(violations),
            "invalid_arguments");
        call->request = std::move(r);
        return send_call_result(*call, shaped, nullptr);
      }
    }
    call->limits = options.limits;
    if (tool->entry.timeout) call->limits.timeout = *tool->entry.timeout;
    call->request = std::move(r);
    calls[call->request.id] = call;
    queue.push_back(call);
    pump();
    warm_once();
  }

  // ---- calls -------------------------------------------------------------------------

  void pump() {
    while (running < options.max_concurrency && !queue.empty()) {
      auto call = queue.front();
      queue.pop_front();
      start(call);
      if (on_dequeue) on_dequeue();
    }
  }

  void start(const std::shared_ptr<Call>& call) {
    ++running;
    execution::ToolLaunch launch{call->tool->entry.script, call->tool->entry.name,
                                 call->arguments_json, call->limits};
    execution::CallCallbacks callbacks;
    std::weak_ptr<Call> weak = call;
    callbacks.on_done = [this, call](execution::Outcome o) { finished(call, std::move(o)); };
    callbacks.on_event = [this, weak](execution::ChannelEvent event) {
      if (auto c = weak.lock()) on_channel(*c, event);
    };
    const std::string tag = "[" + call->request.id.json + " " + call->tool->entry.name + "] ";
    callbacks.on_stderr_line = [this, tag](std::string line) { log.info(tag + line); };
    call->last_report = Clock::now();
    call->run = executor.run(launch, std::move(callbacks));
    if (call->request.meta.progress_token_json && options.heartbeat.count() > 0)
      arm_heartbeat(call);
  }

  void arm_heartbeat(const std::shared_ptr<Call>& call) {
    call->heartbeat.emplace(io, options.heartbeat);
    std::weak_ptr<Call> weak = call;
    call->heartbeat->async_wait([this, weak](const boost::system::error_code& ec) {
      auto c = weak.lock();
      if (ec || !c || c->cancelled || !calls.count(c->request.id)) return;
      if (since(c->last_report) >= options.heartbeat) {
        double next = c->progress_sent ? c->last_progress + 0.001 : 0;
        std::optional<double> total = c->last_total;
        if (total && next > *total) total.reset();
        send_progress(
            *c, next, total,
            "still running (" + std::to_string(since(c->request.received).count() / 1000) + " s)");
      }
      arm_heartbeat(c);
    });
  }

  void send_progress(Call& call, double progress, std::optional<double> total,
                     const std::string& message) {
    rapidjson::Document params(rapidjson::kObjectType);
    auto& a = params.GetAllocator();
    rapidjson::Document token;
    token.Parse(call.request.meta.progress_token_json->c_str());
    params.AddMember("progressToken", rapidjson::Value(token, a), a);
    params.AddMember("progress", progress, a);
    if (total) params.AddMember("total", *total, a);
    if (!message.empty()) params.AddMember("message", rapidjson::Value(message.c_str(), a), a);
    call.last_progress = progress;
    call.progress_sent = true;
    call.last_report = Clock::now();
    emit(jsonrpc::notification_line("notifications/progress", params));
  }

  void on_channel(Call& call, const execution::ChannelEvent& event) {
    if (call.cancelled || !calls.count(call.request.id)) return;
    const std::string tag = "[" + call.request.id.json + " " + call.tool->entry.name + "] ";
    if (auto* bad = std::get_if<execution::MalformedEvent>(&event)) {
      log.warning(tag + bad->why);
    } else if (auto* p = std::get_if<execution::ProgressEvent>(&event)) {
      if (!call.request.meta.progress_token_json) return;  // the client did not ask
      if (call.progress_sent && p->progress <= call.last_progress) {
        call.last_report = Clock::now();
        return;  // progress must increase; a repeat still shows the tool is alive
      }
      call.last_total = p->total;
      send_progress(call, p->progress, p->total, p->message);
    } else if (auto* l = std::get_if<execution::LogEvent>(&event)) {
      auto level = parse_log_level(l->level).value_or(LogLevel::kInfo);
      if (call.request.meta.log_level && level >= *call.request.meta.log_level) {
        rapidjson::Document params(rapidjson::kObjectType);
        auto& a = params.GetAllocator();
        params.AddMember("level", rapidjson::StringRef(log_level_name(level)), a);
        params.AddMember("logger", rapidjson::Value(call.tool->entry.name.c_str(), a), a);
        params.AddMember("data", rapidjson::Value(l->message.c_str(), a), a);
        emit(jsonrpc::notification_line("notifications/message", params));
      } else {
        log.write(
            level >= LogLevel::kWarning ? diagnostics::Level::kWarning : diagnostics::Level::kInfo,
            tag + log_level_name(level) + ": " + l->message);
      }
    }
  }

  void finished(const std::shared_ptr<Call>& call, execution::Outcome outcome) {
    --running;
    if (call->heartbeat) call->heartbeat->cancel();
    calls.erase(call->request.id);
    if (!call->cancelled) {
      ShapedResult shaped = shape_tool_result(call->tool->entry.name, outcome, call->limits,
                                              call->tool->output ? &*call->tool->output : nullptr);
      send_call_result(*call, shaped, &outcome);
    } else {
      audit_unanswered(*call, "cancelled");
    }
    pump();
    if (calls.empty() && on_idle) on_idle();
  }

  // The audit line of a call that gets no response (cancelled, or dropped at shutdown).
  void audit_unanswered(const Call& call, const char* outcome) {
    AuditRecord a = audit_for(call.request);
    a.tool = call.tool->entry.name;
    a.outcome = outcome;
    a.cancelled = true;
    a.argument_names = call.argument_names;
    finish_audit(a, call.request.received);
  }

  void send_call_result(Call& call, ShapedResult& shaped, const execution::Outcome* outcome) {
    AuditRecord a = audit_for(call.request);
    a.tool = call.tool ? call.tool->entry.name : "";
    a.is_error = shaped.is_error;
    a.outcome = shaped.outcome;
    a.argument_names = call.argument_names;
    if (outcome) {
      if (outcome->ending == execution::Ending::kExited) a.exit_status = outcome->exit_code;
      if (outcome->signal) a.signal = outcome->signal;
      a.stdout_bytes = outcome->stdout_total;
      a.timed_out = outcome->ending == execution::Ending::kTimedOut;
      a.truncated = outcome->stdout_truncated();
    }
    // Legacy revisions define structuredContent, if at all, as an object only.
    auto structured = shaped.result.FindMember("structuredContent");
    if (call.request.meta.legacy && structured != shaped.result.MemberEnd() &&
        (!has_structured_output(call.request.meta.protocol_version) ||
         !structured->value.IsObject()))
      shaped.result.RemoveMember("structuredContent");
    profile.complete(shaped.result, call.request.meta.legacy);
    a.bytes_out = emit(jsonrpc::result_line(call.request.id, shaped.result));
    finish_audit(a, call.request.received);
  }

  void cancel(const RequestId& id) {
    auto it = calls.find(id);
    if (it == calls.end()) return;  // unknown or finished: ignored, as the spec says
    auto call = it->second;
    call->cancelled = true;
    if (call->run) {
      executor.cancel(*call->run);  // finished() runs when the group is gone
      return;
    }
    calls.erase(it);
    std::erase(queue, call);
    audit_unanswered(*call, "cancelled");
    if (on_dequeue) on_dequeue();
    if (calls.empty() && on_idle) on_idle();
  }

  void stop_all(std::chrono::milliseconds grace) {
    for (auto& [id, call] : calls) call->cancelled = true;
    for (auto& call : queue) {  // never started: nothing to wait for
      calls.erase(call->request.id);
      audit_unanswered(*call, "shutdown");
    }
    queue.clear();
    if (on_dequeue) on_dequeue();
    executor.terminate_all(grace);
    if (calls.empty() && on_idle) on_idle();
  }
};

Server::Server(asio::io_context& io, const discovery::Catalog& catalog,
               execution::CallRunner& calls, ServerOptions options, Send send,
               diagnostics::Log& log, Audit audit)
    : impl_(std::make_unique<Impl>(io, catalog, calls, std::move(options), std::move(send), log,
                                   std::move(audit))) {}
Server::~Server() = default;

void Server::on_line(std::string_view line) { impl_->on_line(line); }

void Server::on_oversized_line(std::size_t size) {
  std::string message = "Invalid Request: message of " + std::to_string(size) +
                        " bytes exceeds the maximum line size";
  impl_->log.warning(message);
  impl_->emit(jsonrpc::error_line(std::nullopt, jsonrpc::kInvalidRequest, message));
}

std::size_t Server::in_flight() const { return impl_->calls.size(); }
void Server::set_on_idle(std::function<void()> on_idle) { impl_->on_idle = std::move(on_idle); }
std::size_t Server::queued() const { return impl_->queue.size(); }
void Server::set_on_dequeue(std::function<void()> on_dequeue) {
  impl_->on_dequeue = std::move(on_dequeue);
}
void Server::stop_all(std::chrono::milliseconds grace) { impl_->stop_all(grace); }
void Server::input_closed() { impl_->executor.retire_warm(); }

void Server::start_warm() { impl_->warm_wanted = true; }
const std::vector<discovery::Problem>& Server::problems() const { return impl_->problems; }

}  // namespace mcpsh::mcp
