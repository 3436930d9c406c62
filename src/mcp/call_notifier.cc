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
