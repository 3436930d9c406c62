// Discovery (list, check, the server's catalog) is immune to what a script and the
// environment set: helper functions and aliases named like the builtins the probe uses,
// strict options, ERR and DEBUG traps, IFS, SHELLOPTS/BASHOPTS, exported functions, what
// a script does with fd 3, syntax errors shaped to run something while being checked.
// Each fixture in tests/fixtures/hostile defines the same two tools, greet and count (those
// with a syntax error, which are never served, define less); discovery must find exactly
// those with their metadata, or report a clear problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "host_process.h"

namespace mcpsh::testing {
namespace {

using namespace std::string_literals;
using exec::ScratchDir;

std::string hostile(const std::string& name) { return fixture("hostile/" + name); }

constexpr const char* kGreet = R"({"name":"greet","description":"Greets someone.",
    "inputSchema":{"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},
                   "required":["name"]}})";

::testing::AssertionResult has_exactly_greet_and_count(const rapidjson::Value& result,
                                                       const std::string& printed) {
  if (!result.IsObject() || !result.HasMember("tools") || !result["tools"].IsArray())
    return ::testing::AssertionFailure() << "no tools array: " << printed;
  const auto& tools = result["tools"];
  if (tools.Size() != 2 || !tools[0].HasMember("name") || !tools[1].HasMember("name") ||
      std::string(tools[0]["name"].GetString()) != "greet" ||
      std::string(tools[1]["name"].GetString()) != "count")
    return ::testing::AssertionFailure() << "wanted exactly greet and count: " << printed;
  rapidjson::Document greet;
  greet.Parse(kGreet);
  if (tools[0] != greet)
    return ::testing::AssertionFailure() << "greet's metadata: " << compact_json(tools[0]);
  return ::testing::AssertionSuccess();
}

// `list` and `check` both find exactly the script's two tools, with no problem at all.
::testing::AssertionResult discovers_its_tools(const std::string& script,
                                               const HostOptions& options = {}) {
  auto list = run_cli({"list", script}, options);
  if (list.status != 0)
    return ::testing::AssertionFailure() << "list exited " << list.status << ": " << list.err;
  auto d = parse_strict(list.out);
  if (auto ok = has_exactly_greet_and_count(d, list.out); !ok) return ok << "\n" << list.err;
  if (list.err.find("error: ") != std::string::npos ||
      list.err.find("warning: ") != std::string::npos)
    return ::testing::AssertionFailure() << "list reported problems: " << list.err;

  auto check = run_cli({"check", script}, options);
  if (check.status != 0 || check.out.find("ok: greet (") == std::string::npos ||
      check.out.find("ok: count (") == std::string::npos ||
      check.out.find("2 tool(s), 0 error(s), 0 warning(s)") == std::string::npos)
    return ::testing::AssertionFailure() << "check exited " << check.status << ":\n"
                                         << check.out << check.err;
  return ::testing::AssertionSuccess();
}

// `check` fails naming the script and saying why; `list` lists nothing and says the same.
::testing::AssertionResult reported_not_served(const std::string& script, const std::string& why) {
  auto check = run_cli({"check", script});
  const std::string error = "error: " + script + ": script " + why;
  if (check.status != 1 || check.out.find(error) == std::string::npos ||
      check.out.find("its tools are not served") == std::string::npos ||
      check.out.find("0 tool(s), 1 error(s)") == std::string::npos)
    return ::testing::AssertionFailure()
           << "check exited " << check.status << ", wanted \"" << error << "\":\n"
           << check.out;
  auto list = run_cli({"list", script});
  auto d = parse_strict(list.out);
  if (!d.IsObject() || !d.HasMember("tools") || !d["tools"].IsArray() || d["tools"].Size() != 0)
    return ::testing::AssertionFailure() << "list: " << list.out;
  if (list.err.find(error) == std::string::npos)
    return ::testing::AssertionFailure() << "list does not say why: " << list.err;
  return ::testing::AssertionSuccess();
}

// ---- the script's own functions and aliases ------------------------------------------------

class FunctionNamedLikeABuiltin : public ::testing::TestWithParam<const char*> {};

TEST_P(FunctionNamedLikeABuiltin, DoesNotReachTheProbe) {
  HostOptions options;
  options.env = {{"MCPSH_SHADOW", GetParam()}};
  EXPECT_TRUE(discovers_its_tools(hostile("named_like_builtin.sh"), options));
}

INSTANTIATE_TEST_SUITE_P(Hostile, FunctionNamedLikeABuiltin,
                         ::testing::Values("printf", "compgen", "declare", "shopt", "read", "echo",
                                           "builtin", "command", "type", "unset", "set", "trap",
                                           "mapfile", "enable", "unalias", "source", "exec", "exit",
                                           "eval", "local", "true"));

TEST(HostileScript, AliasesDoNotChangeTheProbe) {
  EXPECT_TRUE(discovers_its_tools(hostile("aliases.sh")));
}

// ---- the script's options, traps and variables ----------------------------------------------

TEST(HostileScript, StrictModeAndNewlineTabIfs) {
  EXPECT_TRUE(discovers_its_tools(hostile("strict.sh")));
}

TEST(HostileScript, ErrTrapThatExitsWithErrtrace) {
  EXPECT_TRUE(discovers_its_tools(hostile("err_trap.sh")));
}

TEST(HostileScript, EmptyIfs) { EXPECT_TRUE(discovers_its_tools(hostile("empty_ifs.sh"))); }

TEST(HostileScript, DebugTrapThatFails) {
  EXPECT_TRUE(discovers_its_tools(hostile("debug_trap.sh")));
}

TEST(HostileScript, ToolNamesWithDotsAndDashesSurviveThePosixModeOfTheProbe) {
  const std::string script = hostile("punctuated_names.sh");
  auto list = run_cli({"list", script});
  auto d = parse_strict(list.out);
  ASSERT_TRUE(d.IsObject() && d.HasMember("tools") && d["tools"].IsArray()) << list.out;
  ASSERT_EQ(d["tools"].Size(), 1u) << list.out << list.err;
  EXPECT_STREQ(d["tools"][0]["name"].GetString(), "files.read-all");
  EXPECT_STREQ(d["tools"][0]["description"].GetString(), "Reads every file.");
  auto check = run_cli({"check", script});
  EXPECT_NE(check.out.find("ok: files.read-all ("), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("function tool_bad:name is not served"), std::string::npos) << check.out;
}

// ---- the environment ------------------------------------------------------------------------

TEST(HostileEnvironment, ShelloptsErrexitDoesNotApply) {
  HostOptions options;
  options.env = {{"SHELLOPTS", "errexit"}};
  EXPECT_TRUE(discovers_its_tools(hostile("top_level_failure.sh"), options));
}

TEST(HostileEnvironment, BashoptsFailglobDoesNotApply) {
  HostOptions options;
  options.env = {{"BASHOPTS", "failglob"}};
  EXPECT_TRUE(discovers_its_tools(hostile("strict_glob.sh"), options));
}

class ExportedFunction : public ::testing::TestWithParam<const char*> {};

TEST_P(ExportedFunction, IsNotImported) {
  const std::string name = GetParam();
  HostOptions options;
  options.env = {
      {"BASH_FUNC_" + name + "%%", "() { echo \"exported " + name + " ran\"; return 1; }"}};
  EXPECT_TRUE(discovers_its_tools(hostile("uses_builtins.sh"), options));
}

INSTANTIATE_TEST_SUITE_P(Hostile, ExportedFunction,
                         ::testing::Values("source", "read", "printf", "compgen", "declare",
                                           "shopt", "builtin"));

// ---- scripts that end the shell or read stdin -------------------------------------------------

TEST(HostileScript, TopLevelExitIsReportedWithItsCause) {
  EXPECT_TRUE(reported_not_served(hostile("top_level_exit.sh"),
                                  "stopped while being sourced (exited with status 0; a "
                                  "top-level exit or exec"));
}

TEST(HostileScript, TopLevelExecIsReportedWithItsCause) {
  EXPECT_TRUE(reported_not_served(hostile("top_level_exec.sh"),
                                  "stopped while being sourced (exited with status 0; a "
                                  "top-level exit or exec"));
}

TEST(HostileScript, ReadingStdinGetsNothingOfTheClients) {
  char dir[] = "/tmp/mcpsh-stdin-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string copy = std::string(dir) + "/stdin";
  {
    HostProcess host({hostile("reads_stdin.sh")}, HostOptions{{{"MCPSH_STDIN_COPY", copy}}, ""});
    // Sent at once, while the probe may still be sourcing the script.
    host.send(request("\"list\"", "tools/list"));
    auto line = host.read_line(20s);
    ASSERT_TRUE(line.has_value()) << host.stderr_text();
    auto d = parse_strict(*line);
    ASSERT_TRUE(d.IsObject() && d.HasMember("result")) << *line;
    EXPECT_TRUE(has_exactly_greet_and_count(d["result"], *line));
    host.close_stdin();
    EXPECT_TRUE(host.wait_exit(20s).has_value());
  }
  std::ifstream in(copy);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "") << "the script read the client's request";
  std::filesystem::remove_all(dir);
}

// ---- fd 3: the probe lists the function names through it -----------------------------------
// The host gives each probe a memfd on fd 3 and the probe sources the script with fd 3
// closed, as a call does. Whatever the script does with fd 3 (writes to it, closes it, takes
// it for a file or FIFO of its own), the probe still finds exactly the script's functions,
// never writes into the script's file and never waits on its FIFO.

TEST(HostileScript, LinesWrittenToFd3AreNotTakenForFunctions) {
  EXPECT_TRUE(discovers_its_tools(hostile("fd3_written.sh")));
}

class Fd3Taken : public ::testing::TestWithParam<const char*> {};

TEST_P(Fd3Taken, TheProbeFindsTheToolsAndLeavesTheScriptsFileAlone) {
  ScratchDir scratch;
  const std::string marker = scratch / "scripts-own-file";
  const std::string own = "a line of the script's own\n";
  std::ofstream(marker) << own;
  EXPECT_TRUE(
      discovers_its_tools(hostile("fd3_taken.sh"),
                          HostOptions{{{"MCPSH_FD3", GetParam()}, {"MCPSH_MARKER", marker}}, ""}));
  std::ifstream in(marker);
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, own) << "the probe wrote into the script's own file";
}

INSTANTIATE_TEST_SUITE_P(Hostile, Fd3Taken, ::testing::Values("file", "fifo", "closed"));

// ---- the syntax check ------------------------------------------------------------------------
// The probe parses the script in its own shell under noexec and asks `bash -n` only when that
// finds an error or cannot read the text. Either way nothing of a script with a syntax error
// runs, the verdict is bash's, and a script without one costs no extra process.

// `bash` first in PATH: logs each run's arguments to a file beside it, one line per run, and
// runs /bin/bash under its own name, so that `$BASH -n` comes back through it.
struct CountingBash {
  ScratchDir dir;
  std::string log = dir / "runs";
  CountingBash() {
    std::ofstream script(dir / "bash");
    script << "#!/bin/bash\n"
           << "{ printf '%q ' \"$@\"; printf '\\n'; } >>'" << log << "'\n"
           << "exec -a \"$0\" /bin/bash \"$@\"\n";
    script.close();
    std::filesystem::permissions(dir / "bash", std::filesystem::perms::owner_all);
  }
  HostOptions options(std::vector<std::pair<std::string, std::string>> env = {}) const {
    const char* path = std::getenv("PATH");
    env.emplace_back("PATH", dir.path + ":" + (path ? path : "/usr/bin:/bin"));
    return HostOptions{std::move(env), ""};
  }
  // How many runs had `-n` among their options (a syntax check of its own).
  int syntax_checks() const {
    std::ifstream in(log);
    int n = 0;
    for (std::string line; std::getline(in, line);)
      if (line.rfind("-p -n ", 0) == 0) ++n;
    return n;
  }
};

TEST(SyntaxCheck, AScriptWithoutErrorsIsCheckedWithoutAnotherBash) {
  CountingBash bash;
  EXPECT_TRUE(discovers_its_tools(hostile("strict.sh"), bash.options()));
  EXPECT_EQ(bash.syntax_checks(), 0) << "a bash -n ran for a script that parses";
}

TEST(SyntaxCheck, AnErrorAfterACommandRunsNothingAndBashGivesTheVerdict) {
  CountingBash bash;
  ScratchDir scratch;
  const std::string marker = scratch / "ran";
  const std::string script = hostile("syntax_error_after_a_command.sh");
  auto check = run_cli({"check", script}, bash.options({{"MCPSH_MARKER", marker}}));
  EXPECT_EQ(check.status, 1) << check.out << check.err;
  // bash -n's own message: the file, the line, what it wanted.
  EXPECT_NE(check.out.find("error: " + script + ": script has a syntax error: " + script +
                           ": line 13: syntax error: unexpected end of file"),
            std::string::npos)
      << check.out;
  EXPECT_EQ(bash.syntax_checks(), 1);
  EXPECT_FALSE(std::filesystem::exists(marker)) << "the script ran before its check failed";
}

TEST(SyntaxCheck, TextThatWouldCloseAWrapperRunsNothing) {
  ScratchDir scratch;
  const std::string marker = scratch / "ran";
  const std::string script = hostile("closes_the_check.sh");
  auto check = run_cli({"check", script}, HostOptions{{{"MCPSH_MARKER", marker}}, ""});
  EXPECT_EQ(check.status, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("script has a syntax error"), std::string::npos) << check.out;
  EXPECT_FALSE(std::filesystem::exists(marker)) << "part of the script ran during its check";
}

TEST(SyntaxCheck, AHereDocumentToTheEndOfTheFilePassesAsBashPassesIt) {
  CountingBash bash;
  auto list = run_cli({"list", hostile("heredoc_to_end_of_file.sh")}, bash.options());
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_TRUE(has_exactly_greet_and_count(parse_strict(list.out), list.out)) << list.err;
  EXPECT_EQ(bash.syntax_checks(), 0);
}

// Past 64 KiB, parsing the text as a string costs more than a bash -n process: it gets it.
TEST(SyntaxCheck, ALargeScriptIsLeftToBash) {
  CountingBash bash;
  ScratchDir scratch;
  const std::string script = scratch / "large.sh";
  {
    std::ifstream in(hostile("strict.sh"));
    std::ofstream out(script);
    out << in.rdbuf() << "\n";
    for (int i = 0; i < 1200; ++i)
      out << "# padding, line " << i << ": a script past 64 KiB is parsed by bash -n\n";
  }
  ASSERT_GT(std::filesystem::file_size(script), 65536u);
  EXPECT_TRUE(discovers_its_tools(script, bash.options()));
  EXPECT_EQ(bash.syntax_checks(), 2) << "one bash -n for list, one for check";
}

// A variable cannot hold a NUL byte: such a file goes to bash -n, which calls it binary.
TEST(SyntaxCheck, AFileWithANulByteIsLeftToBash) {
  CountingBash bash;
  ScratchDir scratch;
  const std::string script = scratch / "nul.sh";
  {
    std::ofstream out(script, std::ios::binary);
    out << "#!/usr/bin/env bash\n# a NUL: \0.\ntool_greet() { echo hi; }\n"s;
  }
  auto check = run_cli({"check", script}, bash.options());
  EXPECT_EQ(check.status, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("script has a syntax error"), std::string::npos) << check.out;
  EXPECT_EQ(bash.syntax_checks(), 1);
}

}  // namespace
}  // namespace mcpsh::testing
