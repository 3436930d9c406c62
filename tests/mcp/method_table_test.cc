// mcp::route: the method table and the era rules, without a server.
#include "mcp/method_table.h"

#include <gtest/gtest.h>

#include "server_harness.h"

namespace mcpsh::testing {
namespace {

struct Case {
  std::string method;
  std::string params;  // JSON object text
  bool legacy_open;
  int code;  // 0 = routed
};

rapidjson::Document params_of(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  return d;
}

TEST(MethodTable, RoutesOrRefusesEachCase) {
  const std::string m = "{" + modern_meta() + "}";
  const std::string old = "{" + modern_meta("1999-01-01") + "}";
  const std::vector<Case> cases = {
      {"tools/list", m, false, 0},
      {"tools/list", old, false, -32022},
      {"server/discover", old, true, -32022},
      {"tools/list", "{}", false, -32602},  // no _meta before initialize
      {"tools/list", "{}", true, 0},        // the legacy era
      {"ping", "{}", false, -32601},
      {"ping", "{}", true, 0},
      {"ping", m, true, -32601},
      {"logging/setLevel", m, true, -32601},
      {"initialize", "{}", false, 0},
      {"initialize", "{}", true, 0},
      {"initialize", m, false, -32601},
      {"initialize", old, true, -32601},
      {"resources/read", m, false, 0},  // routed; -32601 comes when no script defines one
      {"resources/nonexistent", m, false, -32601},
      {"subscriptions/listen", m, false, 0},
      {"subscriptions/listen", "{}", false, -32602},  // modern only: needs _meta
      {"subscriptions/listen", "{}", true, -32601},   // not a method of the legacy session
      {"tasks/update", "{}", true, -32601},
      {"tasks/get", "{}", true, 0},            // 2025-11-25 has tasks/get too
      {"resources/subscribe", "{}", true, 0},  // legacy only
      {"resources/subscribe", m, false, -32601},
  };
  for (const auto& c : cases) {
    auto params = params_of(c.params);
    std::optional<mcp::LegacySession> legacy;
    if (c.legacy_open) legacy = mcp::LegacySession{"2025-11-25", std::nullopt, "t"};
    auto routed = mcp::route(c.method, &params, legacy);
    std::string where = c.method + " " + c.params + (c.legacy_open ? " (legacy)" : "");
    if (c.code == 0) {
      ASSERT_TRUE(std::holds_alternative<mcp::Route>(routed)) << where;
      EXPECT_EQ(std::get<mcp::Route>(routed).method->name, c.method) << where;
    } else {
      ASSERT_TRUE(std::holds_alternative<mcp::Refusal>(routed)) << where;
      EXPECT_EQ(std::get<mcp::Refusal>(routed).code, c.code) << where;
    }
  }
}

TEST(MethodTable, LegacyRequestsTakeTheSessionsMeta) {
  auto params = params_of(R"({"_meta":{"progressToken":"p"}})");
  std::optional<mcp::LegacySession> legacy =
      mcp::LegacySession{"2025-06-18", mcp::LogLevel::kNotice, "client"};
  auto routed = mcp::route("tools/call", &params, legacy);
  ASSERT_TRUE(std::holds_alternative<mcp::Route>(routed));
  const auto& meta = std::get<mcp::Route>(routed).meta;
  EXPECT_TRUE(meta.legacy);
  EXPECT_EQ(meta.protocol_version, "2025-06-18");
  EXPECT_EQ(meta.client_name, "client");
  EXPECT_EQ(meta.log_level, mcp::LogLevel::kNotice);
  EXPECT_EQ(meta.progress_token_json, "\"p\"");
}

TEST(MethodTable, UnsupportedVersionDataNamesBoth) {
  auto data = mcp::unsupported_version_data("1999-01-01");
  EXPECT_STREQ(data["requested"].GetString(), "1999-01-01");
  EXPECT_STREQ(data["supported"][0].GetString(), kModern);
}

}  // namespace
}  // namespace mcpsh::testing
