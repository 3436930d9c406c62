// Request line -> response line, one row per rule of the wire: the JSON-RPC envelope, the
// _meta gate, the method table, argument checks. Rows need no tool to run.
#include <gtest/gtest.h>

#include "server_harness.h"

namespace mcpsh::testing {
namespace {

struct Row {
  const char* name;
  std::string line;
  int code;        // expected error code, 0 = a result, 1 = no answer at all
  std::string id;  // expected id ("" = none)
};

std::vector<Row> rows() {
  return {
      {"unparseable", "{nope", -32700, ""},
      {"a batch", "[" + modern("1", "tools/list") + "]", -32600, ""},
      {"a string", R"("x")", -32600, ""},
      {"null id", R"({"jsonrpc":"2.0","id":null,"method":"tools/list"})", -32600, ""},
      {"jsonrpc 1.0", R"({"jsonrpc":"1.0","id":3,"method":"tools/list"})", -32600, "3"},
      {"positional params", R"({"jsonrpc":"2.0","id":4,"method":"tools/list","params":[]})", -32602,
       "4"},
      {"unknown method", modern("5", "resources/list"), -32601, "5"},
      {"no params", R"({"jsonrpc":"2.0","id":6,"method":"tools/list"})", -32602, "6"},
      {"_meta not an object", request("7", "tools/list", R"("_meta":3)"), -32602, "7"},
      {"no version",
       request("8", "tools/list", R"("_meta":{"io.modelcontextprotocol/clientCapabilities":{}})"),
       -32602, "8"},
      {"no capabilities",
       request("9", "tools/list",
               R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"})"),
       -32602, "9"},
      {"bad log level",
       modern("10", "tools/list", "", kModern, R"("io.modelcontextprotocol/logLevel":"loud")"),
       -32602, "10"},
      {"bad progress token", modern("11", "tools/list", "", kModern, R"("progressToken":1.5)"),
       -32602, "11"},
      {"tools/list", modern("12", "tools/list"), 0, "12"},
      {"server/discover", modern("\"d\"", "server/discover"), 0, "\"d\""},
      {"call without name", modern("13", "tools/call"), -32602, "13"},
      {"name not a string", modern("14", "tools/call", R"("name":3)"), -32602, "14"},
      {"unknown tool", modern_call("15", "nope"), -32602, "15"},
      {"advertised, not implemented", modern_call("16", "ghost"), -32602, "16"},
      {"arguments an array", modern_call("17", "echo", "[1]"), -32602, "17"},
      {"arguments violate the schema", modern_call("18", "echo", R"({"n":1.5})"), 0, "18"},
      {"a notification", R"({"jsonrpc":"2.0","method":"notifications/initialized"})", 1, ""},
      {"a response", R"({"jsonrpc":"2.0","id":19,"result":{}})", 1, ""},
  };
}

TEST(WireRoundTrip, EachRuleAnswersAsSpecified) {
  for (const auto& row : rows()) {
    ServerHarness h;
    auto out = h.send(row.line);
    if (row.code == 1) {
      EXPECT_TRUE(out.empty()) << row.name;
      continue;
    }
    ASSERT_EQ(out.size(), 1u) << row.name;
    EXPECT_EQ(error_code(out[0]), row.code) << row.name << ": " << out[0];
    EXPECT_EQ(id_of(out[0]), row.id) << row.name << ": " << out[0];
    EXPECT_TRUE(h.runner.runs.empty()) << row.name;
    ASSERT_EQ(h.audits.size(), 1u) << row.name << ": every answered request is audited once";
  }
}

TEST(WireRoundTrip, ACallResultIsCompleteAndCarriesTheToolText) {
  ServerHarness h;
  EXPECT_TRUE(h.send(modern_call("1", "echo", R"({"n":2})")).empty());
  ASSERT_EQ(h.runner.runs.size(), 1u);
  EXPECT_EQ(h.runner.runs[0].launch.function, "tool_echo");
  EXPECT_EQ(h.runner.runs[0].launch.script, "/scripts/a.sh");
  h.runner.exit(0, 0, "hello\n");
  ASSERT_EQ(h.lines.size(), 1u);
  auto d = parse(h.lines[0]);
  EXPECT_STREQ(d["result"]["content"][0]["text"].GetString(), "hello");
  EXPECT_STREQ(d["result"]["resultType"].GetString(), "complete");
  EXPECT_FALSE(d["result"].HasMember("isError")) << "success leaves isError out";
  ASSERT_EQ(h.audits.size(), 1u);
  EXPECT_EQ(h.audits[0].tool, "echo");
  EXPECT_EQ(h.audits[0].argument_names, std::vector<std::string>{"n"});
}

TEST(WireRoundTrip, AFailingToolIsAnIsErrorResult) {
  ServerHarness h;
  h.send(modern_call("1", "plain"));
  h.runner.exit(0, 3, "broken");
  auto d = parse(h.lines.at(0));
  EXPECT_TRUE(d["result"]["isError"].GetBool());
  EXPECT_EQ(h.audits.at(0).exit_status, 3);
}

TEST(WireRoundTrip, AnOversizedLineIsInvalidRequestWithoutId) {
  ServerHarness h;
  h.server->on_oversized_line(1 << 30);
  ASSERT_EQ(h.lines.size(), 1u);
  EXPECT_EQ(error_code(h.lines[0]), -32600);
  EXPECT_EQ(id_of(h.lines[0]), "");
}

}  // namespace
}  // namespace mcpsh::testing
