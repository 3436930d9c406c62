#include "mcp/call_response.h"

#include "jsonrpc/response.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::mcp {

std::string call_result_line(const jsonrpc::RequestId& id, const RequestMeta& meta,
                             ShapedResult& shaped, const ServerProfileView& profile) {
  // Legacy revisions define structuredContent, if at all, as an object only.
  auto structured = shaped.result.FindMember("structuredContent");
  if (meta.legacy && structured != shaped.result.MemberEnd() &&
      (!has_structured_output(meta.protocol_version) || !structured->value.IsObject()))
    shaped.result.RemoveMember("structuredContent");
  profile.complete(shaped.result, meta.legacy);
  return jsonrpc::result_line(id, shaped.result);
}

}  // namespace mcpsh::mcp
