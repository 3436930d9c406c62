// A tool whose x-mcp-header annotations HTTP clients would reject is not served (on any
// transport) and is reported naming the tool and the reason; a valid annotation is served
// as written, in both eras' lists.
#include <gtest/gtest.h>

#include "discovery/comment_metadata.h"
#include "http_core.h"

namespace mcpsh::testing {
namespace {

std::vector<std::string> listed(const std::string& list_line) {
  std::vector<std::string> names;
  auto d = parse(list_line);
  if (!d.IsObject() || !d.HasMember("result")) return names;
  for (const auto& t : d["result"]["tools"].GetArray()) names.push_back(t["name"].GetString());
  return names;
}

TEST(ToolRegistry, AToolWithAnInvalidXMcpHeaderIsReportedAndNotServed) {
  CoreHarness h;
  h.catalog.tools.push_back({"bad_header", "/scripts/x.sh",
                             R"({"name":"bad_header","inputSchema":{"type":"object","properties":{)"
                             R"("data":{"type":"object","x-mcp-header":"Data"}}}})"});
  h.catalog.tools.push_back({"deploy", "/scripts/d.sh", kDeployTool});
  h.core =
      std::make_unique<mcp::ProtocolCore>(h.catalog, h.runner, mcp::CoreOptions{}, h.time, h.log);
  ASSERT_EQ(h.core->problems().size(), 1u);
  const auto& problem = h.core->problems()[0];
  EXPECT_EQ(problem.severity, discovery::Problem::Severity::kError);
  EXPECT_EQ(problem.where, "bad_header");
  EXPECT_NE(problem.what.find("tool \"bad_header\" has an invalid inputSchema: x-mcp-header at "
                              "/properties/data \"Data\": only a property of type string"),
            std::string::npos)
      << problem.what;
  EXPECT_NE(problem.what.find("the tool is not served"), std::string::npos);

  auto c = h.connect();
  h.core->handle(c, modern("1", "tools/list"));
  h.core->handle(c, modern_call("2", "bad_header", R"({"data":{}})"));
  ASSERT_EQ(c->lines.size(), 2u);
  auto names = listed(c->lines[0]);
  EXPECT_EQ(std::count(names.begin(), names.end(), "bad_header"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "deploy"), 1);
  EXPECT_NE(c->lines[1].find("Tool not found"), std::string::npos) << c->lines[1];
}

TEST(ToolRegistry, AValidAnnotationIsServedAsWrittenInBothEras) {
  HttpCore http;
  EXPECT_TRUE(http.h.core->problems().empty());
  auto modern_list = http.ask(modern("1", "tools/list"), modern_headers("tools/list"));
  mcp::MirroredHeaders legacy;
  legacy.protocol_version = "2025-11-25";
  auto legacy_list = http.ask(request("1", "tools/list", ""), legacy);
  for (const auto& line : {modern_list, legacy_list}) {
    auto d = parse(line);
    ASSERT_TRUE(d.HasMember("result")) << line;
    bool found = false;
    for (const auto& t : d["result"]["tools"].GetArray())
      if (std::string_view(t["name"].GetString()) == "deploy") {
        found = true;
        EXPECT_STREQ(t["inputSchema"]["properties"]["region"]["x-mcp-header"].GetString(),
                     "Region");
      }
    EXPECT_TRUE(found) << line;
  }
}

TEST(ToolRegistry, AScriptDeclaresXMcpHeaderInItsInputComment) {
  std::vector<std::string> lines = {
      "# Deploys.",
      R"(# @input {"type":"object","properties":{"region":{"type":"string",)",
      R"(#   "x-mcp-header":"Region"}},"required":["region"]})",
      "tool_deploy() { :; }",
  };
  auto meta = discovery::metadata_from_comments("deploy", lines, 4);
  ASSERT_TRUE(meta.errors.empty()) << meta.errors[0];
  CoreHarness h;
  h.catalog.tools.push_back({"deploy", "/scripts/d.sh", meta.definition_json});
  h.core =
      std::make_unique<mcp::ProtocolCore>(h.catalog, h.runner, mcp::CoreOptions{}, h.time, h.log);
  EXPECT_TRUE(h.core->problems().empty());
  auto c = h.connect();
  c->mirrored = modern_headers("tools/call", "deploy");
  h.core->handle(c, modern_call("3", "deploy", R"({"region":"eu"})"));
  ASSERT_EQ(c->lines.size(), 1u) << "the annotation is enforced";
  EXPECT_EQ(error_code(c->lines[0]), -32020) << c->lines[0];
}

}  // namespace
}  // namespace mcpsh::testing
