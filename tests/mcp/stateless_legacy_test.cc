// Legacy clients over HTTP (2025-03-26 … 2025-11-25 Streamable HTTP) without a session:
// each request is served in the legacy era its MCP-Protocol-Version header names (none:
// 2025-03-26), with or without an initialize before it; a header naming a version this
// host does not serve is -32022. Each request comes on a connection of its own, as the
// HTTP transport brings them.
#include <gtest/gtest.h>

#include "http_core.h"

namespace mcpsh::testing {
namespace {

constexpr int kUnsupportedVersion = -32022;
constexpr int kInvalidParams = -32602;

mcp::MirroredHeaders legacy_headers(std::optional<std::string> version) {
  mcp::MirroredHeaders h;
  h.protocol_version = std::move(version);
  return h;
}

const rapidjson::Value* tool_named(const rapidjson::Document& list, const char* name) {
  if (!list.IsObject() || !list.HasMember("result")) return nullptr;
  for (const auto& t : list["result"]["tools"].GetArray())
    if (std::string_view(t["name"].GetString()) == name) return &t;
  return nullptr;
}

TEST(StatelessLegacy, ToolsListIsServedInTheEraTheHeaderNamesWithoutInitialize) {
  HttpCore http;
  for (const char* version : {"2025-06-18", "2025-11-25"}) {
    auto line = http.ask(request("1", "tools/list", ""), legacy_headers(version));
    auto d = parse(line);
    ASSERT_TRUE(d.HasMember("result")) << version << ": " << line;
    const auto* report = tool_named(d, "report");
    ASSERT_NE(report, nullptr) << line;
    EXPECT_TRUE(report->HasMember("title")) << version;
    EXPECT_TRUE(report->HasMember("outputSchema")) << version;
  }
  // 2025-03-26 has no titles or output schemas.
  auto d = parse(http.ask(request("1", "tools/list", ""), legacy_headers("2025-03-26")));
  const auto* report = tool_named(d, "report");
  ASSERT_NE(report, nullptr);
  EXPECT_FALSE(report->HasMember("title"));
  EXPECT_FALSE(report->HasMember("outputSchema"));
}

TEST(StatelessLegacy, ARequestWithoutTheHeaderIs2025_03_26) {
  HttpCore http;
  auto without = http.ask(request("1", "tools/list", ""), legacy_headers(std::nullopt));
  auto at_0326 = http.ask(request("1", "tools/list", ""), legacy_headers("2025-03-26"));
  EXPECT_EQ(without, at_0326);
  auto d = parse(without);
  const auto* report = tool_named(d, "report");
  ASSERT_NE(report, nullptr) << without;
  EXPECT_FALSE(report->HasMember("title"));
}

TEST(StatelessLegacy, TheSameVersionGetsTheSameListOnEveryRequest) {
  HttpCore http;
  auto first = http.ask(request("1", "tools/list", ""), legacy_headers("2025-06-18"));
  auto other = http.ask(request("1", "tools/list", ""), legacy_headers("2025-03-26"));
  auto again = http.ask(request("1", "tools/list", ""), legacy_headers("2025-06-18"));
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other);
}

TEST(StatelessLegacy, CallsAndPingAreServedWithoutInitialize) {
  for (const char* version : {"2025-03-26", "2025-06-18", "2025-11-25"}) {
    HttpCore http;
    auto c = http.post(request("2", "tools/call", R"("name":"echo","arguments":{"n":1})"),
                       legacy_headers(version));
    EXPECT_TRUE(c->lines.empty()) << version;
    ASSERT_EQ(http.h.runner.runs.size(), 1u) << version;
    http.h.runner.exit(0, 0, "done");
    ASSERT_EQ(c->lines.size(), 1u);
    auto result = parse(c->lines[0]);
    ASSERT_TRUE(result.HasMember("result")) << c->lines[0];
    EXPECT_STREQ(result["result"]["content"][0]["text"].GetString(), "done");
    EXPECT_EQ(result["result"].HasMember("resultType"), false) << "a legacy result";
    auto ping = http.ask(request("3", "ping", ""), legacy_headers(version));
    EXPECT_EQ(error_code(ping), 0) << ping;
  }
}

TEST(StatelessLegacy, InitializeIsAnsweredAsOnStdioAndKeepsNothing) {
  HttpCore http;
  for (std::optional<std::string> header :
       {std::optional<std::string>(), std::optional<std::string>("2025-06-18"),
        std::optional<std::string>("2099-01-01"), std::optional<std::string>("2026-07-28")}) {
    auto d = parse(http.ask(initialize("1", "2025-06-18"), legacy_headers(header)));
    ASSERT_TRUE(d.HasMember("result"));
    EXPECT_STREQ(d["result"]["protocolVersion"].GetString(), "2025-06-18");
  }
}

TEST(StatelessLegacy, AHeaderNamingAVersionNotServedIsUnsupported) {
  HttpCore http;
  for (const char* version : {"2099-01-01", "", "garbage"}) {
    auto line = http.ask(request("4", "tools/list", ""), legacy_headers(version));
    ASSERT_EQ(error_code(line), kUnsupportedVersion) << version << ": " << line;
    EXPECT_EQ(id_of(line), "4");
    auto d = parse(line);
    EXPECT_STREQ(d["error"]["data"]["requested"].GetString(), version);
    EXPECT_TRUE(d["error"]["data"]["supported"].IsArray());
  }
  EXPECT_TRUE(http.h.runner.runs.empty());
}

TEST(StatelessLegacy, LegacyRequestsAreNotHeldToModernHeaders) {
  // Legacy clients send no Mcp-Method or Mcp-Name; one that sends odd ones is not refused.
  HttpCore http;
  auto headers = legacy_headers("2025-11-25");
  headers.method = "something/else";
  headers.name = "other";
  auto c = http.post(request("5", "tools/call", R"("name":"echo","arguments":{})"), headers);
  EXPECT_TRUE(c->lines.empty());
  EXPECT_EQ(http.h.runner.runs.size(), 1u);
}

TEST(StatelessLegacy, SetLevelIsAcknowledgedAndChecked) {
  HttpCore http;
  auto ok = http.ask(request("6", "logging/setLevel", R"("level":"error")"),
                     legacy_headers("2025-11-25"));
  ASSERT_EQ(error_code(ok), 0) << ok;
  EXPECT_TRUE(parse(ok)["result"].ObjectEmpty());
  auto bad =
      http.ask(request("7", "logging/setLevel", R"("level":"loud")"), legacy_headers("2025-11-25"));
  EXPECT_EQ(error_code(bad), kInvalidParams) << bad;
}

TEST(StatelessLegacy, AStatelessCallGetsEveryLogMessageItsToolSends) {
  // tools-call-with-logging (2025-11-25): setLevel on one request cannot reach the next.
  HttpCore http;
  auto c = http.post(request("8", "tools/call", R"("name":"echo","arguments":{})"),
                     legacy_headers("2025-11-25"));
  http.h.runner.event(0, execution::LogEvent{"debug", "starting"});
  http.h.runner.event(0, execution::LogEvent{"info", "working"});
  auto messages = with_method(c->lines, "notifications/message");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_STREQ(parse(messages[1])["params"]["data"].GetString(), "working");
  http.h.runner.exit(0);
}

TEST(StatelessLegacy, AConnectionThatInitializedKeepsItsSession) {
  // A transport that kept a connection across requests: its negotiated era stands.
  HttpCore http;
  auto c = http.h.connect();
  c->mirrored = legacy_headers(std::nullopt);
  http.h.core->handle(c, initialize("1", "2025-11-25"));
  http.h.core->handle(c, request("2", "tools/list", ""));
  ASSERT_EQ(c->lines.size(), 2u);
  auto d = parse(c->lines[1]);
  const auto* report = tool_named(d, "report");
  ASSERT_NE(report, nullptr) << c->lines[1];
  EXPECT_TRUE(report->HasMember("title"))
      << "served at 2025-11-25, not at the header's default 2025-03-26";
}

}  // namespace
}  // namespace mcpsh::testing
