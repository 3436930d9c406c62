#pragma once
// A ProtocolCore as the HTTP transport drives it: one fresh connection per request, with
// the request's mirrored headers set (connection.h). The catalog is the test catalog plus
// "deploy", a tool whose arguments are mirrored into Mcp-Param-* headers, and "report",
// whose definition has fields legacy revisions do not know (title, outputSchema).
#include <optional>
#include <string>
#include <vector>

#include "core_harness.h"

namespace mcpsh::testing {

inline constexpr const char* kDeployTool =
    R"({"name":"deploy","description":"deploys","inputSchema":{"type":"object","properties":{)"
    R"("region":{"type":"string","x-mcp-header":"Region"},)"
    R"("replicas":{"type":"integer","x-mcp-header":"Replicas"},)"
    R"("dry":{"type":"boolean","x-mcp-header":"Dry-Run"},)"
    R"("target":{"type":"object","properties":{"zone":{"type":["string","null"],"x-mcp-header":"Zone"}}},)"
    R"("note":{"type":"string"}}}})";

inline constexpr const char* kReportTool =
    R"({"name":"report","title":"Report","inputSchema":{"type":"object"},)"
    R"("outputSchema":{"type":"object"}})";

// Headers as a modern client mirrors them for `method` (and `name` when given).
inline mcp::MirroredHeaders modern_headers(const std::string& method,
                                           std::optional<std::string> name = std::nullopt) {
  mcp::MirroredHeaders h;
  h.protocol_version = kModern;
  h.method = method;
  h.name = std::move(name);
  return h;
}

struct HttpCore {
  HttpCore() {
    h.catalog.tools.push_back({"deploy", "/scripts/d.sh", kDeployTool});
    h.catalog.tools.push_back({"report", "/scripts/r.sh", kReportTool});
    h.core =
        std::make_unique<mcp::ProtocolCore>(h.catalog, h.runner, mcp::CoreOptions{}, h.time, h.log);
  }

  // Sends `line` with `headers` on a connection of its own; returns that connection.
  std::shared_ptr<RecordingConnection> post(const std::string& line, mcp::MirroredHeaders headers) {
    auto c = h.connect();
    c->mirrored = std::move(headers);
    last_handled = h.core->handle(c, line);
    return c;
  }
  // The one line answered to `line` ("" and a test failure when there is not exactly one).
  std::string ask(const std::string& line, mcp::MirroredHeaders headers) {
    auto c = post(line, std::move(headers));
    EXPECT_EQ(c->lines.size(), 1u) << line;
    return c->lines.size() == 1 ? c->lines.front() : "";
  }
  // A modern tools/call of deploy with `arguments`, headers `params` added to the standard ones.
  std::shared_ptr<RecordingConnection> deploy(
      const std::string& arguments, std::vector<std::pair<std::string, std::string>> params) {
    auto headers = modern_headers("tools/call", "deploy");
    headers.params = std::move(params);
    return post(modern_call("9", "deploy", arguments), std::move(headers));
  }

  CoreHarness h;
  mcp::Handled last_handled = mcp::Handled::kNoResponse;
};

}  // namespace mcpsh::testing
