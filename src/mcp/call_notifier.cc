#include "mcp/call_notifier.h"

#include <rapidjson/document.h>

#include "diagnostics/log.h"
#include "jsonrpc/response.h"

namespace mcpsh::mcp {

namespace {
std::string tag(const Call& call) {
  return "[" + call.exchange.id->json + " " + call.label() + "] ";
}
}  // namespace

// A question joins the call's asks (the first for each key counts); a malformed one is the
// tool's mistake and fails the call.
std::optional<asking::Ask> CallNotifier::ask_of(const execution::AskEvent& e, std::string& why) {
  auto kind = asking::ask_kind(e.kind);
  if (!kind || !asking::valid_key(e.key)) {
    why = "an ask line with kind \"" + e.kind.substr(0, 16) + "\" and key \"" +
          e.key.substr(0, 64) + "\" (write questions with mcp_elicit and the like)";
    return std::nullopt;
  }
  asking::Ask ask{e.key, *kind, e.first, "", "", ""};
  if (*kind == asking::AskKind::kSample) {
    ask.system = e.second;
    ask.max_tokens = e.third;
  } else {
    ask.schema_json = e.second;
  }
  return ask;
}

void CallNotifier::take_ask(Call& call, const execution::AskEvent& e) {
  std::string why;
  auto ask = ask_of(e, why);
  if (!ask) {
    if (call.ask_mistake.empty()) call.ask_mistake = why;
    return;
  }
  for (const auto& a : call.asks)
    if (a.key == ask->key) return;
  call.asks.push_back(std::move(*ask));
}

void CallNotifier::on_event(Call& call, const execution::ChannelEvent& event,
                            Clock::time_point now) {
  const RequestMeta& meta = call.exchange.meta;
  if (auto* bad = std::get_if<execution::MalformedEvent>(&event)) {
    log_.warning(tag(call) + bad->why);
  } else if (auto* c = std::get_if<execution::ContentEvent>(&event)) {
    if (!c->annotations_problem.empty())
      log_.warning(tag(call) + "mcp_" + execution::content_kind_name(c->kind) +
                   ": annotations dropped: " + c->annotations_problem);
    call.content.blocks.push_back(*c);  // the payload is shared, not copied
  } else if (auto* o = std::get_if<execution::OversizedContentEvent>(&event)) {
    ++call.content.oversized;
    call.content.oversized_bytes += o->bytes;
    if (call.content.oversized == 1)  // once per call: a tool may send many
      log_.warning(tag(call) + "a " + o->kind + " block of " + std::to_string(o->bytes) +
                   " bytes was dropped: over the output limit");
  } else if (auto* q = std::get_if<execution::AskEvent>(&event)) {
    take_ask(call, *q);
  } else if (auto* p = std::get_if<execution::ProgressEvent>(&event)) {
    if (!meta.progress_token_json) return;  // the client did not ask
    if (call.progress.sent && p->progress <= call.progress.last) {
      call.progress.last_report = now;
      return;  // progress must increase; a repeat still shows the tool is alive
    }
    call.progress.total = p->total;
    send_progress(call, p->progress, p->total, p->message, now);
  } else if (auto* l = std::get_if<execution::LogEvent>(&event)) {
    auto level = parse_log_level(l->level).value_or(LogLevel::kInfo);
    if (meta.log_level && level >= *meta.log_level) {
      rapidjson::Document params(rapidjson::kObjectType);
      auto& a = params.GetAllocator();
      params.AddMember("level", rapidjson::StringRef(log_level_name(level)), a);
      params.AddMember("logger", rapidjson::Value(call.label().c_str(), a), a);
      params.AddMember("data", rapidjson::Value(l->message.c_str(), a), a);
      call.connection->send(jsonrpc::notification_line("notifications/message", params),
                            Outgoing{Outgoing::Kind::kNotification, std::nullopt});
    } else {
      log_.write(
          level >= LogLevel::kWarning ? diagnostics::Level::kWarning : diagnostics::Level::kInfo,
          tag(call) + log_level_name(level) + ": " + l->message);
    }
  }
}

void CallNotifier::on_stderr_line(const Call& call, const std::string& line) {
  log_.info(tag(call) + line);
}

void CallNotifier::heartbeat(Call& call, Clock::time_point now) {
  double next = call.progress.sent ? call.progress.last + 0.001 : 0;
  std::optional<double> total = call.progress.total;
  if (total && next > *total) total.reset();
  auto running = std::chrono::duration_cast<std::chrono::seconds>(now - call.exchange.received);
  send_progress(call, next, total, "still running (" + std::to_string(running.count()) + " s)",
                now);
}

void CallNotifier::send_progress(Call& call, double progress, std::optional<double> total,
                                 const std::string& message, Clock::time_point now) {
  rapidjson::Document params(rapidjson::kObjectType);
  auto& a = params.GetAllocator();
  rapidjson::Document token;
  token.Parse(call.exchange.meta.progress_token_json->c_str());
  params.AddMember("progressToken", rapidjson::Value(token, a), a);
  params.AddMember("progress", progress, a);
  if (total) params.AddMember("total", *total, a);
  if (!message.empty()) params.AddMember("message", rapidjson::Value(message.c_str(), a), a);
  call.progress.last = progress;
  call.progress.sent = true;
  call.progress.last_report = now;
  call.connection->send(jsonrpc::notification_line("notifications/progress", params),
                        Outgoing{Outgoing::Kind::kNotification, std::nullopt});
}

}  // namespace mcpsh::mcp
