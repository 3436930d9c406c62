#pragma once
// One request on its way through ProtocolCore's handlers (protocol_core.cc and
// protocol_functions.cc). Private to the core.
#include <memory>

#include "mcp/method_table.h"
#include "mcp/protocol_core.h"

namespace mcpsh::mcp {

struct ProtocolCore::Request {
  ConnectionPtr from;
  Exchange exchange;
  MethodId method;
  std::shared_ptr<rapidjson::Document> document;  // owns params
  const rapidjson::Value* params = nullptr;
};

}  // namespace mcpsh::mcp
