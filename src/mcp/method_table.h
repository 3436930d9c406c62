#pragma once
// The method table and the era rules, checked in one place before any handler runs
// (basic-versioning.mdx):
//  - A request carrying modern _meta (it names io.modelcontextprotocol/protocolVersion) is
//    served statelessly: only modern methods exist for it, and its _meta must be valid
//    and name a version this host serves (-32022 otherwise, server/discover included).
//  - initialize without modern _meta opens the legacy era on its connection; after it,
//    requests without modern _meta are served under the negotiated version.
//  - Anything else is refused with the error a client can act on.
// Pure: no I/O, no state of its own.
#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "mcp/connection.h"
#include "mcp/request_meta.h"

namespace mcpsh::mcp {

enum class MethodId {
  kInitialize,
  kDiscover,
  kToolsList,
  kToolsCall,
  kPing,
  kSetLevel,
  kResourcesList,
  kResourceTemplatesList,
  kResourcesRead,
  kPromptsList,
  kPromptsGet,
  kComplete,
  kListen,
  kSubscribe,
  kUnsubscribe,
  kTasksGet,
  kTasksUpdate,
  kTasksCancel,
  kTasksResult,
  kTasksList,
};

struct MethodSpec {
  std::string_view name;
  MethodId id;
  bool modern;  // exists for requests carrying modern _meta
  bool legacy;  // exists after initialize for requests without it
};

// The method to run and the request's meta (for the legacy era: the session's).
struct Route {
  const MethodSpec* method;
  RequestMeta meta;
};

struct Refusal {
  int code;
  std::string message;
  std::optional<std::string> requested;  // -32022: the version asked for
};

std::variant<Route, Refusal> route(std::string_view method, const rapidjson::Value* params,
                                   const std::optional<LegacySession>& legacy);

// data of an UnsupportedProtocolVersionError: {"requested":...,"supported":[...]}.
rapidjson::Document unsupported_version_data(const std::string& requested);

}  // namespace mcpsh::mcp
