#pragma once
// The response line of a tools/call: a shaped result (tool_result.h), stripped of what the
// call's legacy revision does not define, completed for modern requests (resultType,
// serverInfo). Pure.
#include <string>

#include "jsonrpc/message.h"
#include "mcp/request_meta.h"
#include "mcp/server_profile.h"
#include "mcp/tool_result.h"

namespace mcpsh::mcp {

std::string call_result_line(const jsonrpc::RequestId& id, const RequestMeta& meta,
                             ShapedResult& shaped, const ServerProfileView& profile);

}  // namespace mcpsh::mcp
