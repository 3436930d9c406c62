// The bootstrap that runs a tool (tool_launch.cc) is immune to what the script and the
// environment set: strict options, an ERR trap, functions and aliases named like the
// builtins it needs, SHELLOPTS and exported functions in the environment. And the tool
// then runs under exactly what the script chose.
#include <gtest/gtest.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

std::string bootstrap_fixture(const std::string& name) { return fixture("bootstrap/" + name); }

// Calls one tool and returns the response (parsed), failing the test when none comes.
std::optional<rapidjson::Document> call_once(HostProcess& host, const std::string& tool,
                                             const std::string& arguments = R"({"n":1})",
                                             std::vector<std::string>* others = nullptr,
                                             const std::string& extra_meta = "") {
  host.send(call_request("1", tool, arguments, extra_meta));
  auto response = await_response(host, "1", others);
  EXPECT_TRUE(response) << host.stderr_text();
  return response;
}

TEST(BootstrapImmunity, SetEuoPipefailRunsTheToolUnderThoseOptions) {
  HostProcess host({bootstrap_fixture("strict.sh")});
  auto response = call_once(host, "options");
  ASSERT_TRUE(response);
  const std::string text = result_text(*response);
  ASSERT_FALSE(is_error_result(*response)) << text;
  // Exactly the script's choice: errexit and nounset among the flags, pipefail on.
  EXPECT_NE(text.find("pipefail=on"), std::string::npos) << text;
  const std::string flags = text.substr(0, text.find(' '));
  EXPECT_NE(flags.find('e'), std::string::npos) << text;
  EXPECT_NE(flags.find('u'), std::string::npos) << text;
  EXPECT_NE(text.find(R"(args={"n":1})"), std::string::npos) << text;
}

TEST(BootstrapImmunity, ErrTrapWithErrtraceLeavesTheBootstrapAloneAndGuardsTheTool) {
  HostProcess host({bootstrap_fixture("err_trap.sh")});
  auto ok = call_once(host, "ok");
  ASSERT_TRUE(ok);
  EXPECT_FALSE(is_error_result(*ok)) << result_text(*ok);
  EXPECT_EQ(result_text(*ok), R"(ok {"n":1})");

  host.send(call_request("2", "fails"));
  auto failed = await_response(host, "2");
  ASSERT_TRUE(failed);
  EXPECT_TRUE(is_error_result(*failed));
  const std::string text = result_text(*failed);
  EXPECT_NE(text.find("exit status 9"), std::string::npos) << text;
  EXPECT_EQ(text.find("not reached"), std::string::npos) << text;
}

TEST(BootstrapImmunity, FunctionsNamedLikeBuiltinsDoNotReachTheBootstrap) {
  HostProcess host({bootstrap_fixture("builtin_names.sh")});
  auto response = call_once(host, "echo");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
  EXPECT_EQ(result_text(*response), R"({"n":1})");
}

TEST(BootstrapImmunity, TheToolStillSeesTheScriptsOwnFunctions) {
  HostProcess host({bootstrap_fixture("builtin_names.sh")});
  auto response = call_once(host, "own_read");
  ASSERT_TRUE(response);
  EXPECT_TRUE(is_error_result(*response));
  EXPECT_NE(result_text(*response).find("function read ran"), std::string::npos)
      << result_text(*response);
}

TEST(BootstrapImmunity, AFunctionNamedPrintfDoesNotSilenceMcpProgress) {
  HostProcess host({bootstrap_fixture("builtin_names.sh")});
  std::vector<std::string> before;
  auto response = call_once(host, "progress", "{}", &before, progress_meta("\"tok\""));
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
  EXPECT_EQ(result_text(*response), "done");
  bool reported = false;
  for (const auto& line : before) {
    auto d = parse(line);
    if (method_of(d) == "notifications/progress" && line.find("half") != std::string::npos)
      reported = true;
  }
  EXPECT_TRUE(reported) << "no progress notification before the response";
}

TEST(BootstrapImmunity, AliasesOfTheScriptDoNotChangeTheBootstrap) {
  HostProcess host({bootstrap_fixture("aliases.sh")});
  auto response = call_once(host, "echo");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
  EXPECT_EQ(result_text(*response), R"({"n":1})");
}

TEST(BootstrapImmunity, ShelloptsErrexitInTheEnvironmentDoesNotApply) {
  HostOptions options;
  options.env = {{"SHELLOPTS", "errexit"}};
  HostProcess host({bootstrap_fixture("plain.sh")}, options);
  auto response = call_once(host, "options");
  ASSERT_TRUE(response);
  const std::string text = result_text(*response);
  ASSERT_FALSE(is_error_result(*response)) << text;
  const std::string flags = text.substr(0, text.find(' '));
  EXPECT_EQ(flags.find('e'), std::string::npos) << "the script did not choose errexit: " << text;
  EXPECT_NE(text.find(R"(args={"n":1})"), std::string::npos) << text;
}

TEST(BootstrapImmunity, AnExportedFunctionNamedReadIsNotImported) {
  HostOptions options;
  options.env = {{"BASH_FUNC_read%%", "() { return 1; }"}};
  HostProcess host({bootstrap_fixture("plain.sh")}, options);
  auto response = call_once(host, "options");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
  EXPECT_NE(result_text(*response).find(R"(args={"n":1})"), std::string::npos)
      << result_text(*response);
}

TEST(BootstrapImmunity, AnExportedFunctionNamedSourceIsNotImported) {
  // Hostile only in the processes that run calls ($0 is mcp-shell-host there), so that
  // discovery, which has a bootstrap of its own, still finds the tools.
  HostOptions options;
  options.env = {
      {"BASH_FUNC_source%%",
       R"(() { if [[ $0 == mcp-shell-host ]]; then return 0; fi; builtin source "$@"; })"}};
  HostProcess host({bootstrap_fixture("plain.sh")}, options);
  auto response = call_once(host, "options");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
  EXPECT_NE(result_text(*response).find(R"(args={"n":1})"), std::string::npos)
      << result_text(*response);
}

TEST(BootstrapImmunity, TheToolRunsUnderExactlyTheOptionsTheScriptLeft) {
  for (const char* warm : {"0", "2"}) {
    SCOPED_TRACE(std::string("--warm ") + warm);
    HostProcess host({"--warm", warm, bootstrap_fixture("snapshot.sh")});
    host.send(request("0", "tools/list"));  // warm processes start here
    ASSERT_TRUE(await_response(host, "0"));
    auto response = call_once(host, "same");
    ASSERT_TRUE(response);
    EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
    EXPECT_EQ(result_text(*response), "same");
  }
}

}  // namespace
}  // namespace mcpsh::testing
