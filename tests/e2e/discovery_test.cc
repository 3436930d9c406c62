// Discovery end to end: which scripts are served, what a broken script costs, tools files
// of the old core, comment-block metadata as tools/list shows it.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "host_process.h"

namespace mcpsh::testing {
namespace {

constexpr int kInvalidParams = -32602;

rapidjson::Document list_of(HostProcess& host) {
  host.send(request("\"list\"", "tools/list"));
  auto d = next_response(host);
  EXPECT_TRUE(d.IsObject() && d.HasMember("result")) << (d.IsObject() ? compact_json(d) : "");
  return d;
}

std::vector<std::string> names_of(const rapidjson::Document& list) {
  std::vector<std::string> names;
  if (!list.IsObject() || !list.HasMember("result")) return names;
  for (const auto& t : list["result"]["tools"].GetArray())
    names.emplace_back(t["name"].GetString());
  return names;
}

const rapidjson::Value* tool_named(const rapidjson::Document& list, const std::string& name) {
  if (!list.IsObject() || !list.HasMember("result")) return nullptr;
  for (const auto& t : list["result"]["tools"].GetArray())
    if (name == t["name"].GetString()) return &t;
  return nullptr;
}

// JSON equality (member order aside), printing both sides when they differ.
::testing::AssertionResult same_json(const rapidjson::Value& actual, const std::string& expected) {
  rapidjson::Document e;
  e.Parse(expected.c_str());
  if (e.HasParseError()) return ::testing::AssertionFailure() << "bad expected JSON: " << expected;
  if (actual == e) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << compact_json(actual) << "\nwanted " << expected;
}

using Names = std::vector<std::string>;

// ---- what is served ---------------------------------------------------------------------

TEST(Discovery, DirectoryServesEveryShellScriptInIt) {
  HostProcess host({fixture("toolbox")});
  EXPECT_EQ(names_of(list_of(host)), (Names{"alpha_one", "alpha_two", "beta"}));
  host.send(call_request("1", "beta"));
  EXPECT_EQ(result_text(next_response(host)), "beta");
  host.send(call_request("2", "not_served"));
  EXPECT_TRUE(is_error_response(host.read_line(20s), kInvalidParams, "2"));
}

TEST(Discovery, ScriptsKeepTheirCommandLineOrder) {
  HostProcess host({fixture("toolbox/beta.sh"), fixture("toolbox/alpha.sh")});
  EXPECT_EQ(names_of(list_of(host)), (Names{"beta", "alpha_one", "alpha_two"}));
}

TEST(Discovery, DefaultSchemaIsTypeObject) {
  HostProcess host({fixture("basic.sh")});
  auto list = list_of(host);
  const auto* hi = tool_named(list, "hi");
  ASSERT_NE(hi, nullptr);
  EXPECT_TRUE(same_json((*hi)["inputSchema"], R"({"type":"object"})"));
  EXPECT_STREQ((*hi)["description"].GetString(), "Says hi.");
}

// ---- broken scripts ----------------------------------------------------------------------

TEST(Discovery, SyntaxErrorIsReportedAndOtherScriptsStillServed) {
  HostProcess host({fixture("basic.sh"), fixture("broken_syntax.sh"), fixture("toolbox/beta.sh")});
  auto names = names_of(list_of(host));
  EXPECT_EQ(names.size(), 13u) << "basic.sh's 12 tools and beta";
  EXPECT_EQ(std::count(names.begin(), names.end(), "never"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "beta"), 1);
  std::string err = host.stderr_text();
  EXPECT_NE(err.find("broken_syntax.sh"), std::string::npos) << err;
  EXPECT_NE(err.find("syntax"), std::string::npos) << err;
  host.send(call_request("1", "never"));
  EXPECT_TRUE(is_error_response(host.read_line(20s), kInvalidParams, "1"));
}

TEST(Discovery, ExitWhileSourcedIsReportedAndOtherScriptsStillServed) {
  HostProcess host({fixture("broken_exit.sh"), fixture("basic.sh")});
  auto names = names_of(list_of(host));
  EXPECT_EQ(names.size(), 12u);
  EXPECT_EQ(std::count(names.begin(), names.end(), "early"), 0);
  std::string err = host.stderr_text();
  EXPECT_NE(err.find("broken_exit.sh"), std::string::npos) << err;
  host.send(call_request("1", "hi"));
  EXPECT_EQ(result_text(next_response(host)), "hi");
}

TEST(Discovery, CheckReportsBrokenScriptsAndKeepsTheOthers) {
  auto run = run_cli(
      {"check", fixture("basic.sh"), fixture("broken_syntax.sh"), fixture("broken_exit.sh")});
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("broken_syntax.sh"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("syntax"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("broken_exit.sh"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok: hi"), std::string::npos) << run.out;
}

TEST(Discovery, SameToolInTwoScriptsStopsTheHostNamingBoth) {
  HostProcess host({fixture("duplicate_a.sh"), fixture("duplicate_b.sh")});
  auto status = host.wait_exit(30s);
  ASSERT_TRUE(status.has_value()) << "the host must not start serving";
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 1) << *status;
  std::string err = host.stderr_text();
  EXPECT_NE(err.find("duplicate_a.sh"), std::string::npos) << err;
  EXPECT_NE(err.find("duplicate_b.sh"), std::string::npos) << err;
  EXPECT_NE(err.find("same"), std::string::npos) << err;
  EXPECT_FALSE(host.read_line(1s).has_value()) << "nothing on stdout";
}

TEST(Discovery, SameScriptTwiceIsNotADuplicate) {
  HostProcess host({fixture("toolbox/beta.sh"), fixture("toolbox")});
  EXPECT_EQ(names_of(list_of(host)), (Names{"beta", "alpha_one", "alpha_two"}));
}

TEST(Discovery, ScriptOwnDescriptorsDoNotHideItsTools) {
  // fd_hungry.sh takes fd 9 (the flock idiom) and fd 3, and silences its stdout.
  char dir[] = "/tmp/mcpsh-lock-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string lock = std::string(dir) + "/script.lock";
  {
    HostProcess host({fixture("fd_hungry.sh")}, HostOptions{{{"MCPSH_LOCK_FILE", lock}}, ""});
    EXPECT_EQ(names_of(list_of(host)), (Names{"still_works"})) << host.stderr_text();
    host.close_stdin();
    EXPECT_TRUE(host.wait_exit(20s).has_value());
  }
  std::ifstream in(lock);
  std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, "") << "the host wrote into the script's own file";
  std::filesystem::remove_all(dir);
}

// ---- old-core tools files ----------------------------------------------------------------

class ToolsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mcpsh-marker-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  HostOptions env() const { return HostOptions{{{"MCPSH_MARKER_DIR", dir_}}, ""}; }

  std::string dir_;
};

TEST_F(ToolsFile, TheFileIsTheToolListInItsOrder) {
  HostProcess host({fixture("tools_file/server.sh")}, env());
  EXPECT_EQ(names_of(list_of(host)), (Names{"alpha", "zulu", "bare"}));
}

TEST_F(ToolsFile, DefinitionsComeFromTheFile) {
  HostProcess host({fixture("tools_file/server.sh")}, env());
  auto list = list_of(host);
  const auto* alpha = tool_named(list, "alpha");
  ASSERT_NE(alpha, nullptr);
  EXPECT_TRUE(same_json(*alpha, R"({"name":"alpha","title":"Alpha","description":"Takes a count",
      "inputSchema":{"type":"object","properties":{"count":{"type":"integer","minimum":1,"description":"How many"}},
                     "required":["count"]},
      "annotations":{"readOnlyHint":true}})"));
  const auto* zulu = tool_named(list, "zulu");
  ASSERT_NE(zulu, nullptr);
  EXPECT_STREQ((*zulu)["description"].GetString(), "Zulu, as the tools file says");
  const auto* bare = tool_named(list, "bare");
  ASSERT_NE(bare, nullptr);
  EXPECT_TRUE(same_json((*bare)["inputSchema"], R"({"type":"object"})"));
}

TEST_F(ToolsFile, AdvertisedToolsAreCallable) {
  HostProcess host({fixture("tools_file/server.sh")}, env());
  host.send(call_request("1", "alpha", R"({"count":2})"));
  EXPECT_EQ(result_text(next_response(host)), R"(alpha: {"count":2})");
  host.send(call_request("2", "zulu"));
  EXPECT_EQ(result_text(next_response(host)), "zulu");
}

TEST_F(ToolsFile, UnadvertisedFunctionIsNotCallable) {
  HostProcess host({fixture("tools_file/server.sh")}, env());
  host.send(call_request("1", "hidden"));
  EXPECT_TRUE(is_error_response(host.read_line(20s), kInvalidParams, "1"));
  host.close_stdin();
  ASSERT_TRUE(host.wait_exit(20s).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/hidden")) << "tool_hidden ran";
}

TEST_F(ToolsFile, AdvertisedButUndefinedToolIsInvalidParams) {
  HostProcess host({fixture("tools_file/server.sh")}, env());
  host.send(call_request("1", "bare"));
  auto line = host.read_line(20s);
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "1"));
  EXPECT_NE(error_message(line).find("bare"), std::string::npos) << line.value_or("");
}

TEST_F(ToolsFile, CheckReportsTheHiddenAndTheMissing) {
  auto run = run_cli({"check", fixture("tools_file/server.sh")}, env());
  EXPECT_NE(run.out.find("tool_hidden"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("bare"), std::string::npos) << run.out;
  EXPECT_NE(run.status, -1) << "check must end";
}

// ---- comment-block metadata ---------------------------------------------------------------

TEST(CommentMetadata, ReachesToolsList) {
  HostProcess host({fixture("commented.sh")});
  auto list = list_of(host);
  EXPECT_EQ(names_of(list), (Names{"book", "plain", "count"}));
  const auto* book = tool_named(list, "book");
  ASSERT_NE(book, nullptr);
  EXPECT_TRUE(same_json(*book, R"({"name":"book","title":"Book seats",
      "description":"Books seats for a showing. Seats are held for ten minutes.\nPay at the counter.",
      "inputSchema":{"type":"object",
                     "properties":{"filmId":{"type":"integer","description":"Film id from list_films"},
                                   "note":{"type":"string","description":"Free text"}},
                     "required":["filmId"]},
      "annotations":{"destructiveHint":false,"idempotentHint":true}})"));
  const auto* plain = tool_named(list, "plain");
  ASSERT_NE(plain, nullptr);
  EXPECT_TRUE(same_json(*plain, R"({"name":"plain","inputSchema":{"type":"object"}})"));
  const auto* count = tool_named(list, "count");
  ASSERT_NE(count, nullptr);
  EXPECT_TRUE(
      same_json((*count)["outputSchema"],
                R"({"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]})"));
}

TEST(CommentMetadata, OutputSchemaGivesStructuredContent) {
  HostProcess host({fixture("commented.sh")});
  host.send(call_request("1", "count"));
  auto d = next_response(host);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result"));
  EXPECT_FALSE(is_error_result(d)) << compact_json(d);
  ASSERT_TRUE(d["result"].HasMember("structuredContent")) << compact_json(d);
  EXPECT_TRUE(same_json(d["result"]["structuredContent"], R"({"n":3})"));
}

TEST(CommentMetadata, DeclaredParamsAreValidated) {
  HostProcess host({fixture("commented.sh")});
  host.send(call_request("1", "book", R"({"filmId":"seven"})"));
  auto d = next_response(host);
  EXPECT_TRUE(is_error_result(d)) << compact_json(d);
  EXPECT_NE(result_text(d).find("filmId"), std::string::npos) << compact_json(d);
}

}  // namespace
}  // namespace mcpsh::testing
