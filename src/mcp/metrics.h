#pragma once
// What /metrics exposes (Prometheus text format 0.0.4), fed with the audit facts of every
// finished request (the same AuditRecord the audit log writes):
//  - mcpsh_requests_total{method,class}: class is ok, tool_error (an isError result),
//    protocol_error (a JSON-RPC error), cancelled or refused (an HTTP refusal), the error
//    classes kept apart; methods outside MCP's are counted as "other";
//  - mcpsh_call_duration_seconds{tool}: a histogram of tools/call durations, for calls
//    that reached a tool;
//  - mcpsh_response_bytes_total; and, read at the scrape, mcpsh_calls_in_flight and
//    mcpsh_calls_queued.
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
  void record(const AuditRecord& r);
  std::string render(std::size_t in_flight, std::size_t queued) const;

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
  std::uint64_t bytes_out_ = 0;
};

}  // namespace mcpsh::mcp
