#pragma once
// One request being handled, from the line that brought it to its answer (or to the
// decision that it gets none). Everything the audit needs about a request is here, so
// that handlers only fill in facts and never write audit records themselves.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "jsonrpc/message.h"
#include "mcp/audit_record.h"
#include "mcp/request_meta.h"

namespace mcpsh::mcp {

using Clock = std::chrono::steady_clock;

struct Exchange {
  std::optional<jsonrpc::RequestId> id;  // absent for lines refused before an id was known
  std::string method;
  RequestMeta meta;
  Clock::time_point received;
  std::string tool;                         // tools/call, once the name is known
  std::vector<std::string> argument_names;  // never the values
  std::uint64_t bytes_in = 0;               // the request's JSON text, in bytes
};

// How an exchange ended, for the audit: fill in what applies and pass it to the answer
// path together with the line (if any) that was sent.
AuditRecord audit_record(const Exchange& exchange, AuditRecord facts, Clock::time_point now);

}  // namespace mcpsh::mcp
