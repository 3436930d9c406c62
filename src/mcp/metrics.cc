#include "mcp/metrics.h"

#include <cstdio>
#include <set>
#include <string_view>

namespace mcpsh::mcp {

namespace {

// Methods a label may name; anything else a client sends is "other", so that a client
// cannot make the exposition grow without bound.
bool known_method(std::string_view m) {
  static const std::set<std::string_view, std::less<>> kKnown = {
      "initialize",          "ping",
      "server/discover",     "tools/list",
      "tools/call",          "resources/list",
      "resources/read",      "resources/templates/list",
      "resources/subscribe", "resources/unsubscribe",
      "prompts/list",        "prompts/get",
      "completion/complete", "logging/setLevel",
      "subscriptions/listen"};
  return kKnown.count(m) > 0;
}

std::string outcome_class(const AuditRecord& r) {
  if (r.outcome == "refused") return "refused";
  if (r.error_code) return "protocol_error";
  if (r.cancelled) return "cancelled";
  if (r.is_error && *r.is_error) return "tool_error";
  if (r.outcome == "input_required") return "input_required";
  return "ok";
}

// A label value: backslash, double quote and newline escaped (tool names never hold them,
// but the format must hold whatever comes).
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

}  // namespace

void Metrics::record(const AuditRecord& r) {
  const std::string method = r.method.empty() ? "" : known_method(r.method) ? r.method : "other";
  ++requests_[{method, outcome_class(r)}];
  bytes_in_ += r.bytes_in;
  bytes_out_ += r.bytes_out;
  // A call that reached a tool: its result was sent (isError either way).
  if (r.method == "tools/call" && r.is_error && !r.tool.empty()) {
    Histogram& h = durations_[r.tool];
    const double seconds = static_cast<double>(r.duration.count()) / 1000.0;
    std::size_t i = 0;
    while (i < kBuckets.size() && seconds > kBuckets[i]) ++i;
    if (i < kBuckets.size()) ++h.buckets[i];
    ++h.count;
    h.sum += seconds;
  }
}

std::string Metrics::render(const Gauges& now) const {
  std::string out;
  out += "# HELP mcpsh_requests_total Requests answered, by method and outcome class.\n";
  out += "# TYPE mcpsh_requests_total counter\n";
  for (const auto& [key, n] : requests_)
    out += "mcpsh_requests_total{method=\"" + label(key.first) + "\",class=\"" + key.second +
           "\"} " + std::to_string(n) + "\n";
  out += "# HELP mcpsh_call_duration_seconds Tool call durations, by tool.\n";
  out += "# TYPE mcpsh_call_duration_seconds histogram\n";
  for (const auto& [tool, h] : durations_) {
    const std::string t = "tool=\"" + label(tool) + "\"";
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out += "mcpsh_call_duration_seconds_bucket{" + t + ",le=\"" + number(kBuckets[i]) + "\"} " +
             std::to_string(cumulative) + "\n";
    }
    out += "mcpsh_call_duration_seconds_bucket{" + t + ",le=\"+Inf\"} " + std::to_string(h.count) +
           "\n";
    out += "mcpsh_call_duration_seconds_sum{" + t + "} " + number(h.sum) + "\n";
    out += "mcpsh_call_duration_seconds_count{" + t + "} " + std::to_string(h.count) + "\n";
  }
  out += "# HELP mcpsh_request_bytes_total Bytes of requests answered.\n";
  out += "# TYPE mcpsh_request_bytes_total counter\n";
  out += "mcpsh_request_bytes_total " + std::to_string(bytes_in_) + "\n";
  out += "# HELP mcpsh_response_bytes_total Bytes of responses sent.\n";
  out += "# TYPE mcpsh_response_bytes_total counter\n";
  out += "mcpsh_response_bytes_total " + std::to_string(bytes_out_) + "\n";
  out += "# HELP mcpsh_calls_in_flight Calls queued or running.\n";
  out += "# TYPE mcpsh_calls_in_flight gauge\n";
  out += "mcpsh_calls_in_flight " + std::to_string(now.in_flight) + "\n";
  out += "# HELP mcpsh_calls_queued Calls waiting for a concurrency slot.\n";
  out += "# TYPE mcpsh_calls_queued gauge\n";
  out += "mcpsh_calls_queued " + std::to_string(now.queued) + "\n";
  out +=
      "# HELP mcpsh_processes Process groups started and not yet ended (calls, warm bash, "
      "probes).\n";
  out += "# TYPE mcpsh_processes gauge\n";
  out += "mcpsh_processes " + std::to_string(now.processes) + "\n";
  out +=
      "# HELP mcpsh_warm_starts_total Runs that found a warm bash ready (hit) or started "
      "one (miss).\n";
  out += "# TYPE mcpsh_warm_starts_total counter\n";
  out += "mcpsh_warm_starts_total{result=\"hit\"} " + std::to_string(now.warm_hits) + "\n";
  out += "mcpsh_warm_starts_total{result=\"miss\"} " + std::to_string(now.warm_misses) + "\n";
  return out;
}

}  // namespace mcpsh::mcp
