#include "mcp/exchange.h"

namespace mcpsh::mcp {

AuditRecord audit_record(const Exchange& exchange, AuditRecord facts, Clock::time_point now) {
  facts.id_json = exchange.id ? exchange.id->json : "";
  facts.method = exchange.method;
  facts.tool = exchange.tool;
  facts.protocol_version = exchange.meta.protocol_version;
  facts.client_name = exchange.meta.client_name;
  facts.argument_names = exchange.argument_names;
  facts.bytes_in = exchange.bytes_in;
  facts.duration = std::chrono::duration_cast<std::chrono::milliseconds>(now - exchange.received);
  return facts;
}

}  // namespace mcpsh::mcp
