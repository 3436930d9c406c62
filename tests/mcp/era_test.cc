// The two eras of MCP on one connection (basic-versioning.mdx): a request carrying modern
// _meta is served statelessly at the version it names, or refused with -32022 when that
// version is not one this host serves; initialize opens the legacy era, whose methods do
// not exist for modern requests.
#include <gtest/gtest.h>

#include "server_harness.h"

namespace mcpsh::testing {
namespace {

constexpr int kUnsupportedVersion = -32022;
constexpr int kMethodNotFound = -32601;

TEST(Era, EveryModernMethodRefusesAnUnsupportedVersionWithRequestedAndSupported) {
  for (const char* method : {"server/discover", "tools/list", "tools/call"}) {
    ServerHarness h;
    auto line = h.ask(modern("7", method, R"("name":"echo")", "1999-01-01"));
    ASSERT_EQ(error_code(line), kUnsupportedVersion) << method << ": " << line;
    auto d = parse(line);
    EXPECT_EQ(id_of(line), "7");
    EXPECT_STREQ(d["error"]["data"]["requested"].GetString(), "1999-01-01") << line;
    ASSERT_TRUE(d["error"]["data"]["supported"].IsArray()) << line;
    EXPECT_STREQ(d["error"]["data"]["supported"][0].GetString(), kModern) << line;
    EXPECT_TRUE(h.runner.runs.empty()) << "nothing runs at an unsupported version";
  }
}

TEST(Era, ALegacyVersionNamedInModernMetaIsUnsupported) {
  // Legacy revisions are reached through initialize, never through per-request _meta: the
  // -32022 tells a modern client to retry with a modern version, not to fall back.
  ServerHarness h;
  for (const char* method : {"server/discover", "tools/list"})
    EXPECT_EQ(error_code(h.ask(modern("1", method, "", "2025-11-25"))), kUnsupportedVersion)
        << method;
}

TEST(Era, DiscoverAtTheSupportedVersionNamesIt) {
  ServerHarness h;
  auto d = parse(h.ask(modern("1", "server/discover")));
  ASSERT_TRUE(d.HasMember("result"));
  EXPECT_STREQ(d["result"]["supportedVersions"][0].GetString(), kModern);
}

TEST(Era, LegacyOnlyMethodsDoNotExistForModernRequestsBeforeOrAfterInitialize) {
  ServerHarness h;
  const std::vector<std::pair<std::string, std::string>> legacy_only = {
      {"initialize", R"("protocolVersion":"2025-11-25","capabilities":{},)"
                     R"("clientInfo":{"name":"t","version":"1"})"},
      {"ping", ""},
      {"logging/setLevel", R"("level":"info")"}};
  for (bool initialized : {false, true}) {
    if (initialized) {
      ASSERT_EQ(error_code(h.ask(initialize("\"init\""))), 0);
    }
    for (const auto& [method, params] : legacy_only) {
      for (const char* version : {kModern, "1999-01-01"}) {
        auto line = h.ask(modern("2", method, params, version));
        EXPECT_EQ(error_code(line), kMethodNotFound)
            << method << " at " << version << (initialized ? " after" : " before")
            << " initialize: " << line;
      }
    }
  }
}

TEST(Era, ModernInitializeDoesNotOpenTheLegacyEra) {
  ServerHarness h;
  h.ask(modern("1", "initialize",
               R"("protocolVersion":"2025-11-25","capabilities":{},)"
               R"("clientInfo":{"name":"t","version":"1"})"));
  EXPECT_EQ(error_code(h.ask(request("2", "ping", ""))), kMethodNotFound);
}

TEST(Era, InitializeOpensTheLegacyEraForRequestsWithoutModernMeta) {
  ServerHarness h;
  EXPECT_EQ(error_code(h.ask(request("1", "ping", ""))), kMethodNotFound) << "before initialize";
  auto init = parse(h.ask(initialize("2", "2025-06-18")));
  ASSERT_TRUE(init.HasMember("result"));
  EXPECT_STREQ(init["result"]["protocolVersion"].GetString(), "2025-06-18");
  EXPECT_EQ(error_code(h.ask(request("3", "ping", ""))), 0);
  EXPECT_EQ(error_code(h.ask(request("4", "logging/setLevel", R"("level":"debug")"))), 0);
  auto list = parse(h.ask(request("5", "tools/list", "")));
  ASSERT_TRUE(list.HasMember("result"));
  EXPECT_FALSE(list["result"].HasMember("resultType")) << "legacy results carry no resultType";
  // Modern requests are still served statelessly beside the legacy era.
  auto modern_list = parse(h.ask(modern("6", "tools/list")));
  EXPECT_STREQ(modern_list["result"]["resultType"].GetString(), "complete");
}

TEST(Era, AnInitializeAtAnUnknownVersionGetsTheNewestLegacyOne) {
  ServerHarness h;
  auto d = parse(h.ask(initialize("1", "2099-01-01")));
  EXPECT_STREQ(d["result"]["protocolVersion"].GetString(), "2025-11-25");
}

}  // namespace
}  // namespace mcpsh::testing
