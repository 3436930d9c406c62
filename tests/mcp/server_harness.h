#pragma once
// An mcp::Server over a fixed catalog and a FakeRunner, with every line it sends kept in
// order. Requests are built as text, exactly as they come off the wire.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "diagnostics/log.h"
#include "discovery/catalog.h"
#include "fake_runner.h"
#include "mcp/server.h"

namespace mcpsh::testing {

inline constexpr const char* kModern = "2026-07-28";

// "_meta":{...} of a modern request at `version`, plus `extra` members.
inline std::string modern_meta(const std::string& version = kModern,
                               const std::string& extra = "") {
  return R"("_meta":{"io.modelcontextprotocol/protocolVersion":")" + version +
         R"(","io.modelcontextprotocol/clientCapabilities":{})" +
         (extra.empty() ? "" : "," + extra) + "}";
}

// A request line; `params` is the text inside params' braces ("" = empty object).
inline std::string request(const std::string& id, const std::string& method,
                           const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":{)" + params +
         "}}";
}
inline std::string modern(const std::string& id, const std::string& method,
                          const std::string& params = "", const std::string& version = kModern,
                          const std::string& meta_extra = "") {
  return request(id, method,
                 params + (params.empty() ? "" : ",") + modern_meta(version, meta_extra));
}
inline std::string modern_call(const std::string& id, const std::string& tool,
                               const std::string& arguments = "{}",
                               const std::string& meta_extra = "") {
  return modern(id, "tools/call", R"("name":")" + tool + R"(","arguments":)" + arguments, kModern,
                meta_extra);
}
inline std::string initialize(const std::string& id, const std::string& version = "2025-11-25") {
  return request(id, "initialize",
                 R"("protocolVersion":")" + version +
                     R"(","capabilities":{},"clientInfo":{"name":"t","version":"1"})");
}

inline rapidjson::Document parse(const std::string& line) {
  rapidjson::Document d;
  d.Parse(line.c_str(), line.size());
  EXPECT_FALSE(d.HasParseError()) << line;
  return d;
}
// The error code of a response line, or 0 when it is a result.
inline int error_code(const std::string& line) {
  auto d = parse(line);
  if (!d.IsObject() || !d.HasMember("error")) return 0;
  return d["error"]["code"].GetInt();
}
// The compact JSON of a line's id ("" when it has none).
inline std::string id_of(const std::string& line) {
  auto d = parse(line);
  if (!d.IsObject() || !d.HasMember("id")) return "";
  const auto& id = d["id"];
  return id.IsString() ? "\"" + std::string(id.GetString()) + "\"" : std::to_string(id.GetInt64());
}
inline std::string method_of(const std::string& line) {
  auto d = parse(line);
  return d.IsObject() && d.HasMember("method") ? d["method"].GetString() : "";
}

inline discovery::Catalog test_catalog() {
  discovery::Catalog c;
  c.tools.push_back({"echo", "/scripts/a.sh",
                     R"({"name":"echo","description":"echoes","inputSchema":{"type":"object",)"
                     R"("properties":{"n":{"type":"integer"}}}})"});
  c.tools.push_back({"plain", "/scripts/b.sh",
                     R"({"name":"plain","description":"plain","inputSchema":{"type":"object"}})"});
  discovery::ToolEntry ghost{"ghost", "", R"({"name":"ghost","inputSchema":{"type":"object"}})"};
  ghost.implemented = false;
  c.tools.push_back(ghost);
  return c;
}

struct ServerHarness {
  explicit ServerHarness(mcp::ServerOptions options = {}) {
    server = std::make_unique<mcp::Server>(
        io, catalog, runner, options, [this](std::string line) { lines.push_back(line); }, log,
        [this](const mcp::AuditRecord& r) { audits.push_back(r); });
  }

  // Sends one line; returns what the server sent in answer, synchronously.
  std::vector<std::string> send(const std::string& line) {
    std::size_t before = lines.size();
    server->on_line(line);
    return {lines.begin() + static_cast<std::ptrdiff_t>(before), lines.end()};
  }
  // The one line sent in answer to `line` (fails the test when it is not exactly one).
  std::string ask(const std::string& line) {
    auto out = send(line);
    EXPECT_EQ(out.size(), 1u) << line;
    return out.empty() ? "" : out.front();
  }
  // Lines sent for `id` (responses only).
  std::vector<std::string> responses_for(const std::string& id) const {
    std::vector<std::string> out;
    for (const auto& l : lines)
      if (method_of(l).empty() && id_of(l) == id) out.push_back(l);
    return out;
  }

  boost::asio::io_context io;
  discovery::Catalog catalog = test_catalog();
  FakeRunner runner;
  diagnostics::Log log{"", diagnostics::Level::kOff};
  std::vector<std::string> lines;
  std::vector<mcp::AuditRecord> audits;
  std::unique_ptr<mcp::Server> server;
};

}  // namespace mcpsh::testing
