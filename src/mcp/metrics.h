#pragma once
// What /metrics exposes (Prometheus text format 0.0.4), fed with the audit facts of every
// finished request (the same AuditRecord the audit log writes):
//  - mcpsh_requests_total{method,class}: class is ok, tool_error (an isError result),
//    protocol_error (a JSON-RPC error), cancelled or refused (an HTTP refusal), the error
//    classes kept apart; methods outside MCP's are counted as "other";
//  - mcpsh_call_duration_seconds{tool}: a histogram of tools/call durations, for calls
//    that reached a tool;
//  - mcpsh_request_bytes_total and mcpsh_response_bytes_total;
//  - read at the scrape (Gauges): mcpsh_calls_in_flight, mcpsh_calls_queued,
//    mcpsh_processes (process groups started and not yet ended: calls, warm bash, probes)
//    and mcpsh_warm_starts_total{result="hit"|"miss"} (calls that found a warm bash ready,
//    and those that had to start one).
// Single-threaded: the loop's thread records and renders.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "mcp/audit_record.h"

namespace mcpsh::mcp {

class Metrics {
 public:
  struct Gauges {
    std::size_t in_flight = 0, queued = 0, processes = 0;
    std::uint64_t warm_hits = 0, warm_misses = 0;
  };
  void record(const AuditRecord& r);
  std::string render(const Gauges& now) const;

  // Upper bounds of the duration buckets, in seconds (+Inf is implied).
  static constexpr std::array<double, 12> kBuckets{0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                   0.5,   1,    2.5,   5,    10,  60};

 private:
  struct Histogram {
    std::array<std::uint64_t, kBuckets.size()> buckets{};  // not cumulative
    std::uint64_t count = 0;
    double sum = 0;
  };
  std::map<std::pair<std::string, std::string>, std::uint64_t> requests_;  // (method, class)
  std::map<std::string, Histogram> durations_;                             // by tool
  std::uint64_t bytes_in_ = 0, bytes_out_ = 0;
};

}  // namespace mcpsh::mcp
