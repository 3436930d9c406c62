// mcp::read_request_meta: the per-request _meta rules of MCP 2026-07-28.
#include "mcp/request_meta.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <variant>

#include "jsonrpc/error_codes.h"

namespace mcpsh::mcp {
namespace {

constexpr const char* kVersion = R"("io.modelcontextprotocol/protocolVersion")";
constexpr const char* kCaps = R"("io.modelcontextprotocol/clientCapabilities")";

// A params object whose _meta has exactly these members (JSON text).
std::string params_with(const std::string& members) { return R"({"_meta":{)" + members + "}}"; }
// The members of a valid _meta (supported version, empty capabilities), plus `extra`.
std::string good_meta(const std::string& extra = "") {
  return std::string(kVersion) + R"(:"2026-07-28",)" + kCaps + ":{}" +
         (extra.empty() ? "" : "," + extra);
}

std::variant<RequestMeta, MetaError> read(const std::string& params_json) {
  rapidjson::Document doc;
  doc.Parse(params_json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << params_json;
  return read_request_meta(&doc);
}

MetaError expect_error(const std::variant<RequestMeta, MetaError>& r) {
  EXPECT_TRUE(std::holds_alternative<MetaError>(r)) << "expected an error";
  return std::holds_alternative<MetaError>(r) ? std::get<MetaError>(r) : MetaError{0, "", {}};
}

RequestMeta expect_meta(const std::variant<RequestMeta, MetaError>& r) {
  if (auto* e = std::get_if<MetaError>(&r)) ADD_FAILURE() << "unexpected error: " << e->message;
  return std::holds_alternative<RequestMeta>(r) ? std::get<RequestMeta>(r) : RequestMeta{};
}

void expect_invalid_params_naming(const std::variant<RequestMeta, MetaError>& r,
                                  const std::string& field) {
  MetaError e = expect_error(r);
  EXPECT_EQ(e.code, jsonrpc::kInvalidParams);
  EXPECT_NE(e.message.find(field), std::string::npos) << e.message;
}

TEST(RequestMeta, NoParamsNamesTheVersion) {
  expect_invalid_params_naming(read_request_meta(nullptr),
                               "io.modelcontextprotocol/protocolVersion");
}

TEST(RequestMeta, MissingMetaNamesTheVersion) {
  expect_invalid_params_naming(read(R"({"name":"x"})"), "io.modelcontextprotocol/protocolVersion");
}

TEST(RequestMeta, MetaNotAnObjectNamesMeta) {
  expect_invalid_params_naming(read(R"({"_meta":[]})"), "_meta");
}

TEST(RequestMeta, MissingVersionNamesIt) {
  expect_invalid_params_naming(read(params_with(std::string(kCaps) + ":{}")),
                               "io.modelcontextprotocol/protocolVersion");
}

TEST(RequestMeta, NonStringVersionNamesIt) {
  expect_invalid_params_naming(
      read(params_with(std::string(kVersion) + ":20260728," + kCaps + ":{}")),
      "io.modelcontextprotocol/protocolVersion");
}

TEST(RequestMeta, MissingCapabilitiesNamesThem) {
  expect_invalid_params_naming(read(params_with(std::string(kVersion) + R"(:"2026-07-28")")),
                               "io.modelcontextprotocol/clientCapabilities");
}

TEST(RequestMeta, NonObjectCapabilitiesNamesThem) {
  for (const char* bad : {"[]", "\"all\"", "null", "true"}) {
    expect_invalid_params_naming(
        read(params_with(std::string(kVersion) + R"(:"2026-07-28",)" + kCaps + ":" + bad)),
        "io.modelcontextprotocol/clientCapabilities");
  }
}

TEST(RequestMeta, UnsupportedVersionIsMinus32022WithRequested) {
  MetaError e =
      expect_error(read(params_with(std::string(kVersion) + R"(:"1999-01-01",)" + kCaps + ":{}")));
  EXPECT_EQ(e.code, jsonrpc::kUnsupportedProtocolVersion);
  ASSERT_TRUE(e.requested.has_value());
  EXPECT_EQ(*e.requested, "1999-01-01");
}

TEST(RequestMeta, LegacyVersionIsUnsupportedOnModernRequests) {
  MetaError e =
      expect_error(read(params_with(std::string(kVersion) + R"(:"2025-11-25",)" + kCaps + ":{}")));
  EXPECT_EQ(e.code, jsonrpc::kUnsupportedProtocolVersion);
}

// The fields are checked before the version: a malformed _meta is the client's bug
// whatever version it names.
TEST(RequestMeta, MalformedMetaAtAnUnsupportedVersionIsInvalidParams) {
  expect_invalid_params_naming(read(params_with(std::string(kVersion) + R"(:"1999-01-01")")),
                               "io.modelcontextprotocol/clientCapabilities");
}

TEST(RequestMeta, ReadsVersionAndClientName) {
  RequestMeta m = expect_meta(read(params_with(
      good_meta(R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"})"))));
  EXPECT_EQ(m.protocol_version, "2026-07-28");
  EXPECT_EQ(m.client_name, "c");
  EXPECT_FALSE(m.log_level.has_value());
  EXPECT_FALSE(m.progress_token_json.has_value());
}

TEST(RequestMeta, EveryLogLevelIsAccepted) {
  const char* names[] = {"debug", "info",     "notice", "warning",
                         "error", "critical", "alert",  "emergency"};
  for (int i = 0; i < 8; ++i) {
    RequestMeta m = expect_meta(read(params_with(
        good_meta(std::string(R"("io.modelcontextprotocol/logLevel":")") + names[i] + "\""))));
    ASSERT_TRUE(m.log_level.has_value()) << names[i];
    EXPECT_EQ(static_cast<int>(*m.log_level), i) << names[i];
    EXPECT_STREQ(log_level_name(*m.log_level), names[i]);
  }
}

TEST(RequestMeta, UnknownLogLevelIsInvalidParams) {
  expect_invalid_params_naming(
      read(params_with(good_meta(R"("io.modelcontextprotocol/logLevel":"verbose")"))),
      "io.modelcontextprotocol/logLevel");
}

TEST(RequestMeta, NonStringLogLevelIsInvalidParams) {
  expect_invalid_params_naming(
      read(params_with(good_meta(R"("io.modelcontextprotocol/logLevel":3)"))),
      "io.modelcontextprotocol/logLevel");
}

TEST(RequestMeta, StringProgressTokenKeptAsJson) {
  RequestMeta m = expect_meta(read(params_with(good_meta(R"("progressToken":"tok-1")"))));
  ASSERT_TRUE(m.progress_token_json.has_value());
  EXPECT_EQ(*m.progress_token_json, R"("tok-1")");
}

TEST(RequestMeta, IntegerProgressTokenKeptAsJson) {
  RequestMeta m = expect_meta(read(params_with(good_meta(R"("progressToken":-12345678901234)"))));
  ASSERT_TRUE(m.progress_token_json.has_value());
  EXPECT_EQ(*m.progress_token_json, "-12345678901234");
}

TEST(RequestMeta, InvalidProgressTokenIsInvalidParams) {
  for (const char* bad : {"1.5", "true", "null", "{}", "[]"})
    expect_invalid_params_naming(
        read(params_with(good_meta(std::string(R"("progressToken":)") + bad))), "progressToken");
}

// The tasks extension is declared per request: clientCapabilities.extensions
// ["io.modelcontextprotocol/tasks"], an object.
TEST(RequestMeta, TheTasksExtensionIsDeclaredByAnObject) {
  auto with_caps = [](const std::string& caps) {
    return params_with(std::string(kVersion) + R"(:"2026-07-28",)" + kCaps + ":" + caps);
  };
  EXPECT_FALSE(expect_meta(read(params_with(good_meta()))).tasks);
  EXPECT_TRUE(
      expect_meta(read(with_caps(R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})"))).tasks);
  EXPECT_TRUE(expect_meta(read(with_caps(R"({"roots":{},"extensions":{"other/ext":{},)"
                                         R"("io.modelcontextprotocol/tasks":{"future":1}}})")))
                  .tasks);
  for (const char* no :
       {R"({"extensions":{"io.modelcontextprotocol/tasks":true}})",
        R"({"extensions":{"io.modelcontextprotocol/tasks":null}})",
        R"({"extensions":{"io.modelcontextprotocol/tasks":[]}})", R"({"extensions":{"tasks":{}}})",
        R"({"extensions":[]})", R"({"tasks":{"requests":{"tools":{"call":{}}}}})",
        R"({"io.modelcontextprotocol/tasks":{}})"})
    EXPECT_FALSE(expect_meta(read(with_caps(no))).tasks) << no;
  // It says nothing of what the client can answer.
  EXPECT_EQ(expect_meta(read(with_caps(R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})")))
                .client_capabilities,
            "");
}

TEST(LogLevels, ParseRejectsUnknownNames) {
  EXPECT_FALSE(parse_log_level("").has_value());
  EXPECT_FALSE(parse_log_level("Info").has_value());
  EXPECT_FALSE(parse_log_level("warn").has_value());
  EXPECT_EQ(parse_log_level("alert"), LogLevel::kAlert);
}

}  // namespace
}  // namespace mcpsh::mcp
