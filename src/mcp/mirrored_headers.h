#pragma once
// The request headers an HTTP transport mirrored from the body (connection.h's
// MirroredHeaders), checked against the body before dispatch: MCP 2026-07-28,
// basic-transports-streamable-http.mdx, "Request Metadata" and "Server Validation".
// Only requests are checked (notifications and responses carry nothing to route on), and
// only when the transport set `mirrored` (never on stdio).
//
// A request is modern when its body carries modern _meta (params._meta names
// io.modelcontextprotocol/protocolVersion), or when it is not initialize and its
// MCP-Protocol-Version header names a modern version. The checks run in this order; the
// first that fails answers, with the request's id. It is the order the conformance suite
// (0.2.0-alpha.11: http-header-validation, http-custom-header-server-validation,
// server-stateless) sends and expects:
//
//   step  request                         condition                              answer
//   1     modern                          no MCP-Protocol-Version header         -32020
//   2     modern, body names a version    header version != body version         -32020
//         (a string)                      (even when either is unsupported)
//   3     modern                          route(): unknown or legacy-only method -32601
//                                         _meta missing or invalid               -32602
//                                         header = body = unsupported version    -32022
//   4     modern                          Mcp-Method missing or != method        -32020
//   5     modern tools/call,              Mcp-Name missing, != name after        -32020
//         resources/read, prompts/get     decoding, invalid base64 or characters
//         (body params.name / params.uri)
//   6     modern tools/call of a served   for each x-mcp-header property whose   -32020
//         tool                            argument is present and not null:
//                                         Mcp-Param-{Name} missing, invalid, or
//                                         != the argument (string as is, integer
//                                         numerically, boolean "true"/"false");
//                                         a header for an absent or null argument
//   -     initialize without modern       none, whatever the headers: initialize works
//         _meta                           as on stdio (it negotiates in its body)
//   -     not modern, anything else       MCP-Protocol-Version absent: served in the
//                                         legacy era 2025-03-26; a legacy version
//                                         we serve: in that era; anything else:   -32022
//                                         (data: requested, supported)
// Header names were matched ignoring case by the transport (Mcp-Param-{Name} here);
// values are compared exactly, after trimming the optional whitespace around them.
// Pure: no I/O, no state of its own.
#include <rapidjson/document.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "mcp/connection.h"
#include "mcp/x_mcp_header.h"

namespace mcpsh::mcp {

inline constexpr int kHeaderMismatch = -32020;  // HeaderMismatch, MCP 2026-07-28

struct HeaderRefusal {
  int code;
  std::string message;
  std::optional<std::string> requested;  // -32022: the version asked for
};

// Steps 1-2: a modern request whose version headers agree; routed as usual, then checked
// by check_mirrored_body.
struct ModernEra {};
// Initialize without modern _meta: routed as on stdio.
struct AsOnStdio {};
// A stateless legacy request: served in this legacy era.
struct StatelessLegacy {
  std::string version;
};
using MirroredEra = std::variant<ModernEra, AsOnStdio, StatelessLegacy, HeaderRefusal>;

MirroredEra mirrored_era(const MirroredHeaders& headers, std::string_view method,
                         const rapidjson::Value* params);

// The x-mcp-header annotations of the tool a tools/call names; nullptr for a tool not
// served (the call is then refused for that reason, not for its headers).
using HeaderParamsOf = std::function<const std::vector<HeaderParam>*(std::string_view tool)>;

// Steps 4-6, for a modern request that routed.
std::optional<HeaderRefusal> check_mirrored_body(const MirroredHeaders& headers,
                                                 std::string_view method,
                                                 const rapidjson::Value* params,
                                                 const HeaderParamsOf& header_params_of);

}  // namespace mcpsh::mcp
