// The one-shot verbs for people at a terminal: list, call, read, prompt, check, --help,
// --version; and the example file server (tools/files.sh) through them.
#include <gtest/gtest.h>
#include <rapidjson/pointer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "e2e_helpers.h"
#include "exec_helpers.h"
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
  for (const char* verb : {"list", "call", "read", "prompt", "check", "--tool", "--args"})
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

// A script with resources, templates, prompts and three tools, in a folder of its own.
struct OfferingScript {
  exec::ScratchDir dir;
  std::string path = dir / "offering.sh";
  OfferingScript() {
    std::ofstream(path) << R"BASH(
# The greeting.
# @uri greet://hello
# @mime text/plain
resource_hello() { echo "hello"; }

# One user, by id: prints what it was given.
# @uri users://{id}/profile
resource_profile() { printf '%s' "$1"; }

# Always fails.
# @uri broken://always
resource_broken() { echo "the disk is on fire"; return 3; }

# Greets someone.
# @arg name Who to greet
# @arg tone? How
prompt_greet() {
  mcp_message assistant "I greet people."
  printf 'Greet: %s' "$1"
}

# Always fails.
prompt_broken() { echo "no prompt today"; return 1; }

tool_t1() { echo 1; }
tool_t2() { echo 2; }
tool_t3() { echo 3; }
)BASH";
  }
};

// The string at a JSON pointer, or a text saying there is none (a test never aborts on a
// missing member).
std::string at(const rapidjson::Value& d, const char* pointer) {
  const rapidjson::Value* v = rapidjson::Pointer(pointer).Get(d);
  return v && v->IsString() ? std::string(v->GetString(), v->GetStringLength())
                            : std::string("<no string at ") + pointer + ">";
}

// The `key` of each item of the array at `pointer`.
std::vector<std::string> names(const rapidjson::Value& d, const char* pointer, const char* key) {
  std::vector<std::string> out;
  const rapidjson::Value* items = rapidjson::Pointer(pointer).Get(d);
  if (!items || !items->IsArray()) return out;
  for (const auto& item : items->GetArray())
    if (item.IsObject() && item.HasMember(key) && item[key].IsString())
      out.emplace_back(item[key].GetString());
  return out;
}

TEST(Verbs, ListAlsoListsResourcesTemplatesAndPrompts) {
  OfferingScript script;
  auto run = run_cli({"list", script.path});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject()) << run.out;
  EXPECT_EQ(names(d, "/tools", "name"), (std::vector<std::string>{"t1", "t2", "t3"})) << run.out;
  ASSERT_TRUE(d.HasMember("resources")) << run.out;
  EXPECT_EQ(names(d, "/resources", "uri"),
            (std::vector<std::string>{"greet://hello", "broken://always"}))
      << run.out;
  ASSERT_TRUE(d.HasMember("resourceTemplates")) << run.out;
  EXPECT_EQ(names(d, "/resourceTemplates", "uriTemplate"),
            (std::vector<std::string>{"users://{id}/profile"}))
      << run.out;
  ASSERT_TRUE(d.HasMember("prompts")) << run.out;
  EXPECT_EQ(names(d, "/prompts", "name"), (std::vector<std::string>{"greet", "broken"})) << run.out;
}

TEST(Verbs, ListOfToolsOnlyHasNoOtherKinds) {
  auto run = run_cli({"list", fixture("basic.sh")});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject()) << run.out;
  for (const char* key : {"resources", "resourceTemplates", "prompts"})
    EXPECT_FALSE(d.HasMember(key)) << key << ":\n" << run.out;
}

TEST(Verbs, ListGathersEveryPage) {
  OfferingScript script;
  auto run = run_cli({"list", "--page-size", "1", script.path});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject()) << run.out;
  EXPECT_EQ(names(d, "/tools", "name"), (std::vector<std::string>{"t1", "t2", "t3"})) << run.out;
  EXPECT_EQ(names(d, "/resources", "uri").size(), 2u) << run.out;
  EXPECT_EQ(names(d, "/prompts", "name").size(), 2u) << run.out;
  EXPECT_FALSE(d.HasMember("nextCursor")) << run.out;
}

TEST(Verbs, ReadPrintsTheReadResult) {
  OfferingScript script;
  auto run = run_cli({"read", script.path, "greet://hello"});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("contents") && d["contents"].IsArray()) << run.out;
  ASSERT_EQ(d["contents"].Size(), 1u) << run.out;
  EXPECT_EQ(at(d, "/contents/0/uri"), "greet://hello");
  EXPECT_EQ(at(d, "/contents/0/mimeType"), "text/plain");
  EXPECT_EQ(at(d, "/contents/0/text"), "hello\n");
}

TEST(Verbs, ReadGivesATemplateItsValues) {
  OfferingScript script;
  auto run = run_cli({"read", script.path, "users://42/profile"});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("contents")) << run.out;
  EXPECT_EQ(at(d, "/contents/0/text"), R"({"uri":"users://42/profile","variables":{"id":"42"}})");
}

TEST(Verbs, ReadOfAFailingResourceExitsOneWithItsText) {
  OfferingScript script;
  auto run = run_cli({"read", script.path, "broken://always"});
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("the disk is on fire"), std::string::npos) << run.err;
}

TEST(Verbs, ReadOfAnUnknownUriExitsTwoListingTheResources) {
  OfferingScript script;
  auto run = run_cli({"read", script.path, "greet://goodbye"});
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("greet://goodbye"), std::string::npos) << run.err;
  for (const char* uri : {"greet://hello", "users://{id}/profile"})
    EXPECT_NE(run.err.find(uri), std::string::npos) << "lists " << uri << ":\n" << run.err;
}

TEST(Verbs, ReadOfScriptsWithoutResourcesExitsTwo) {
  auto run = run_cli({"read", fixture("basic.sh"), "greet://hello"});
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(Verbs, ReadWithoutAUriExitsTwo) {
  auto run = run_cli({"read", fixture("basic.sh")});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("URI"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
}

TEST(Verbs, ReadOfAPublishedFolderNeedsNoScript) {
  exec::ScratchDir dir;
  std::ofstream(dir / "notes.txt") << "remember";
  char* real = ::realpath(dir.path.c_str(), nullptr);
  ASSERT_NE(real, nullptr);
  std::string root = real;
  ::free(real);
  auto run = run_cli({"read", "--resource-dir", dir.path, "file://" + root + "/notes.txt"});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("contents")) << run.out;
  EXPECT_EQ(at(d, "/contents/0/text"), "remember");

  auto escape = run_cli({"read", "--resource-dir", dir.path, "file://" + root + "/../etc/passwd"});
  EXPECT_EQ(escape.status, 2) << escape.err;
  EXPECT_TRUE(escape.out.empty()) << escape.out;
}

TEST(Verbs, ListOfAPublishedFolderNeedsNoScript) {
  exec::ScratchDir dir;
  std::ofstream(dir / "notes.txt") << "remember";
  auto run = run_cli({"list", "--resource-dir", dir.path});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject()) << run.out;
  EXPECT_EQ(names(d, "/resources", "name"), (std::vector<std::string>{"notes.txt"})) << run.out;
}

TEST(Verbs, PromptPrintsTheMessages) {
  OfferingScript script;
  auto run = run_cli({"prompt", script.path, "greet", "--args", R"({"name":"Ada"})"});
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("messages") && d["messages"].IsArray()) << run.out;
  ASSERT_EQ(d["messages"].Size(), 2u) << run.out;
  EXPECT_EQ(at(d, "/messages/0/role"), "assistant");
  EXPECT_EQ(at(d, "/messages/0/content/text"), "I greet people.");
  EXPECT_EQ(at(d, "/messages/1/role"), "user");
  EXPECT_EQ(at(d, "/messages/1/content/text"), R"(Greet: {"name":"Ada"})");
  EXPECT_EQ(at(d, "/description"), "Greets someone.");
}

TEST(Verbs, PromptWithoutARequiredArgumentExitsTwoNamingIt) {
  OfferingScript script;
  auto run = run_cli({"prompt", script.path, "greet", "--args", R"({"tone":"warm"})"});
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("name"), std::string::npos) << run.err;
}

TEST(Verbs, PromptOfAnUnknownNameExitsTwoListingThePrompts) {
  OfferingScript script;
  auto run = run_cli({"prompt", script.path, "farewell"});
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find("farewell"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("greet (name, tone?)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("broken"), std::string::npos) << run.err;
}

TEST(Verbs, PromptOfAFailingFunctionExitsOneWithItsText) {
  OfferingScript script;
  auto run = run_cli({"prompt", script.path, "broken"});
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("no prompt today"), std::string::npos) << run.err;
}

TEST(Verbs, PromptWithArgsThatAreNotAnObjectExitsTwo) {
  OfferingScript script;
  auto run = run_cli({"prompt", script.path, "greet", "--args", R"(["Ada"])"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--args"), std::string::npos) << run.err;
}

TEST(Verbs, ArgsBelongToCallAndPrompt) {
  OfferingScript script;
  auto run = run_cli({"read", script.path, "greet://hello", "--args", "{}"});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("--args"), std::string::npos) << run.err;
}

// ---- the example file server, tools/files.sh, through the verbs ----

struct FilesRoot {
  exec::ScratchDir dir;
  std::string root = dir / "root";
  FilesRoot() {
    ::mkdir(root.c_str(), 0700);
    ::mkdir((root + "/src").c_str(), 0700);
    std::ofstream(root + "/src/main.c") << "int main(void) { return 0; }\n";
    std::ofstream(root + "/a b.txt") << "spaced\n";
    std::ofstream(dir / "secret.txt") << "outside\n";
    EXPECT_EQ(::symlink("../secret.txt", (root + "/out").c_str()), 0);
  }
  HostOptions env() const { return {.env = {{"FILES_ROOT", root}}, .cwd = ""}; }
};

std::string files_sh() { return source_dir() + "/tools/files.sh"; }

TEST(FilesExample, CheckIsClean) {
  auto run = run_cli({"check", files_sh()});
  EXPECT_EQ(run.status, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("0 error(s), 0 warning(s)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok: resource file files:///{+path}"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ok: prompt review_file"), std::string::npos) << run.out;
}

TEST(FilesExample, ReadsAFileByItsPath) {
  FilesRoot files;
  auto run = run_cli({"read", files_sh(), "files:///src/main.c"}, files.env());
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("contents") && d["contents"].IsArray()) << run.out;
  ASSERT_EQ(d["contents"].Size(), 1u) << run.out;
  EXPECT_EQ(at(d, "/contents/0/uri"), "files:///src/main.c");
  EXPECT_EQ(at(d, "/contents/0/text"), "int main(void) { return 0; }\n");

  auto spaced = run_cli({"read", files_sh(), "files:///a%20b.txt"}, files.env());
  EXPECT_EQ(spaced.status, 0) << spaced.err;
  EXPECT_NE(spaced.out.find("spaced"), std::string::npos) << spaced.out;
}

TEST(FilesExample, ReadsAFolderAsItsListing) {
  FilesRoot files;
  auto run = run_cli({"read", files_sh(), "files:///src"}, files.env());
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("contents")) << run.out;
  EXPECT_EQ(at(d, "/contents/0/text"), "file  main.c (29 bytes)\n");
}

TEST(FilesExample, NothingOutsideTheRootIsRead) {
  FilesRoot files;
  for (const char* uri :
       {"files:///../secret.txt", "files:///%2E%2E/secret.txt",
        "files:///src/%2E%2E/%2E%2E/secret.txt", "files:////etc/passwd", "files:///out"}) {
    auto run = run_cli({"read", files_sh(), uri}, files.env());
    EXPECT_EQ(run.status, 1) << uri << ": " << run.err;
    EXPECT_EQ(run.out.find("outside"), std::string::npos) << uri << ": " << run.out;
    EXPECT_EQ(run.out.find("root:"), std::string::npos) << uri << ": " << run.out;
  }
}

TEST(FilesExample, ReviewPromptEmbedsTheFile) {
  FilesRoot files;
  auto run = run_cli({"prompt", files_sh(), "review_file", "--args",
                      R"({"path":"src/main.c","focus":"portability"})"},
                     files.env());
  EXPECT_EQ(run.status, 0) << run.err;
  auto d = json_of(run);
  ASSERT_TRUE(d.IsObject() && d.HasMember("messages") && d["messages"].IsArray()) << run.out;
  ASSERT_EQ(d["messages"].Size(), 2u) << run.out;
  EXPECT_EQ(at(d, "/messages/0/content/type"), "resource");
  EXPECT_EQ(at(d, "/messages/0/content/resource/uri"), "files:///src/main.c");
  EXPECT_EQ(at(d, "/messages/0/content/resource/text"), "int main(void) { return 0; }\n");
  std::string ask = at(d, "/messages/1/content/text");
  EXPECT_NE(ask.find("review"), std::string::npos) << ask;
  EXPECT_NE(ask.find("portability"), std::string::npos) << ask;
}

TEST(FilesExample, ReviewPromptRefusesAPathOutOfTheRoot) {
  FilesRoot files;
  auto run =
      run_cli({"prompt", files_sh(), "review_file", "--args", R"({"path":"out"})"}, files.env());
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_NE(run.err.find("outside the served root"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace mcpsh::testing
