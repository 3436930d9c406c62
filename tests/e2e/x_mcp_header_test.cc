// x-mcp-header as a script author writes it (in @input): the real binary serves a valid
// annotation as written and calls the tool over stdio as before (stdio mirrors nothing);
// a tool whose annotation HTTP clients would reject is left out and `check` says why.
#include <gtest/gtest.h>

#include "e2e_helpers.h"

namespace mcpsh::testing {
namespace {

TEST(XMcpHeaderScript, CheckNamesTheToolWithAnInvalidAnnotationAndFails) {
  auto run = run_cli({"check", fixture("mirrored_headers.sh")});
  std::string text = run.out + run.err;
  EXPECT_EQ(run.status, 1) << text;
  EXPECT_NE(text.find("bad_header"), std::string::npos) << text;
  EXPECT_NE(text.find("x-mcp-header at /properties/data"), std::string::npos) << text;
  EXPECT_EQ(text.find("route_query\" has"), std::string::npos) << text;
}

TEST(XMcpHeaderScript, AValidAnnotationIsListedAsWrittenAndTheInvalidToolIsNot) {
  auto run = run_cli({"list", fixture("mirrored_headers.sh")});
  auto list = parse(run.out);
  ASSERT_TRUE(list.IsObject() && list.HasMember("tools")) << run.out << run.err;
  std::vector<std::string> names;
  for (const auto& tool : list["tools"].GetArray()) {
    names.push_back(tool["name"].GetString());
    if (names.back() == "route_query") {
      EXPECT_STREQ(tool["inputSchema"]["properties"]["region"]["x-mcp-header"].GetString(),
                   "Region");
    }
  }
  EXPECT_EQ(names, std::vector<std::string>{"route_query"});
}

TEST(XMcpHeaderScript, StdioCallsNeedNoHeaders) {
  auto run = run_cli({"call", fixture("mirrored_headers.sh"), "--tool", "route_query", "--args",
                      R"({"region":"eu","query":"q"})"});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("ran in eu"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace mcpsh::testing
