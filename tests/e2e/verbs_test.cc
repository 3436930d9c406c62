// The one-shot verbs for people at a terminal: list, call, check, --help, --version.
#include <gtest/gtest.h>

#include <string>

#include "e2e_helpers.h"
#include "host_process.h"

namespace mcpsh::testing {
namespace {

rapidjson::Document json_of(const CliRun& run) {
  auto d = parse_strict(run.out);
  EXPECT_FALSE(d.HasParseError()) << "stdout is not one JSON value:\n" << run.out;
  return d;
}

TEST(Verbs, ListPrintsTheToolsListResult) {
  auto run = run_cli({"list", fixture("basic.sh")});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject());
  ASSERT_TRUE(d.HasMember("tools") && d["tools"].IsArray()) << run.out;
  EXPECT_EQ(d["tools"].Size(), 12u);
  EXPECT_STREQ(d["tools"][0]["name"].GetString(), "hi");
  EXPECT_EQ(run.out.find("top-level output"), std::string::npos)
      << "script output stays off stdout";
}

TEST(Verbs, CallPrintsACallToolResult) {
  auto run = run_cli({"call", fixture("basic.sh"), "--tool", "hi"});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("content")) << run.out;
  EXPECT_STREQ(d["content"][0]["text"].GetString(), "hi");
  EXPECT_FALSE(d.HasMember("isError")) << run.out;
}

TEST(Verbs, CallPassesArgs) {
  auto run =
      run_cli({"call", fixture("basic.sh"), "--tool", "echo_args", "--args", R"({"a": [1, "b"]})"});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("content")) << run.out;
  EXPECT_STREQ(d["content"][0]["text"].GetString(), R"({"a":[1,"b"]})");
}

TEST(Verbs, CallOfAFailingToolExitsOne) {
  auto run =
      run_cli({"call", fixture("basic.sh"), "--tool", "fail", "--args", R"({"message":"nope"})"});
  EXPECT_EQ(run.status, 1) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("isError")) << run.out;
  EXPECT_TRUE(d["isError"].IsTrue());
  EXPECT_STREQ(d["content"][0]["text"].GetString(), "nope");
}

TEST(Verbs, CallOfAnUnknownToolExitsTwoListingTheTools) {
  auto run = run_cli({"call", fixture("toolbox"), "--tool", "gamma"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("gamma"), std::string::npos) << run.err;
  for (const char* tool : {"alpha_one", "alpha_two", "beta"})
    EXPECT_NE(run.err.find(tool), std::string::npos) << "lists " << tool << ":\n" << run.err;
  EXPECT_EQ(run.err.find("\"jsonrpc\""), std::string::npos) << "human-readable, not JSON-RPC:\n"
                                                            << run.err;
}

TEST(Verbs, CallWithArgsThatAreNotJsonExitsTwo) {
  auto run = run_cli({"call", fixture("basic.sh"), "--tool", "hi", "--args", "{not json"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--args"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("JSON"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(Verbs, CallWithArgsThatAreNotAnObjectExitsTwo) {
  auto run = run_cli({"call", fixture("basic.sh"), "--tool", "hi", "--args", "[1]"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--args"), std::string::npos) << run.err;
}

TEST(Verbs, CallWithDeeplyNestedArgsExitsTwo) {
  // As deep as one argv string allows (128 KiB): enough to overflow a recursive parser.
  auto run = run_cli(
      {"call", fixture("basic.sh"), "--tool", "echo_args", "--args", std::string(130000, '[')});
  EXPECT_EQ(run.status, 2) << run.err.substr(0, 2000);
  EXPECT_NE(run.err.find("--args"), std::string::npos) << run.err.substr(0, 2000);
}

TEST(Verbs, CallWithoutToolExitsTwo) {
  auto run = run_cli({"call", fixture("basic.sh")});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--tool"), std::string::npos) << run.err;
}

TEST(Verbs, CheckOfACleanScriptExitsZero) {
  auto run = run_cli({"check", fixture("toolbox")});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  for (const char* tool : {"ok: alpha_one", "ok: alpha_two", "ok: beta"})
    EXPECT_NE(run.out.find(tool), std::string::npos) << run.out;
}

TEST(Verbs, CheckOfABrokenScriptExitsOneNamingTheProblem) {
  auto run = run_cli({"check", fixture("broken_syntax.sh")});
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("broken_syntax.sh"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("syntax error"), std::string::npos) << run.out;
}

TEST(Verbs, CheckOfDuplicateToolsExitsOneNamingBothFiles) {
  auto run = run_cli({"check", fixture("duplicate_a.sh"), fixture("duplicate_b.sh")});
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("duplicate_a.sh"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("duplicate_b.sh"), std::string::npos) << run.out;
}

TEST(Verbs, HelpExitsZero) {
  auto run = run_cli({"--help"});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("Usage"), std::string::npos) << run.out;
  for (const char* verb : {"list", "call", "check", "--tool", "--args"})
    EXPECT_NE(run.out.find(verb), std::string::npos) << verb;
}

TEST(Verbs, VersionExitsZero) {
  auto run = run_cli({"--version"});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(run.out.rfind("mcp-shell-host ", 0), 0u) << run.out;
}

TEST(Verbs, NoScriptsExitsTwoWithAUsageHint) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{}, {"list"}, {"check"}, {"serve"}}) {
    auto run = run_cli(args);
    EXPECT_EQ(run.status, 2) << (args.empty() ? "" : args[0]);
    EXPECT_NE(run.err.find("--help"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << run.out;
  }
}

TEST(Verbs, UnknownOptionExitsTwo) {
  auto run = run_cli({"--no-such-option", fixture("basic.sh")});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("no-such-option"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace mcpsh::testing
