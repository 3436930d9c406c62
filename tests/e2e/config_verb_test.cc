// The config verb, run as users run it: the snippet names this very binary and the scripts
// by absolute real paths (whatever folder it was run from), repeats the options given, and
// the command it describes serves the tools; misuse is exit status 2 with a message.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

namespace fs = std::filesystem;

std::string real(const std::string& path) { return fs::canonical(path).string(); }

// The command and args of the one server in a JSON snippet under `root`, by `name`.
std::vector<std::string> json_launch(const std::string& text, const char* root, const char* name) {
  rapidjson::Document d = parse_strict(text);
  EXPECT_FALSE(d.HasParseError()) << text;
  if (d.HasParseError() || !d.IsObject() || !d.HasMember(root) || !d[root].HasMember(name)) {
    ADD_FAILURE() << "no " << root << "." << name << " in " << text;
    return {};
  }
  const auto& server = d[root][name];
  std::vector<std::string> words{server["command"].GetString()};
  for (const auto& arg : server["args"].GetArray()) words.emplace_back(arg.GetString());
  return words;
}

TEST(ConfigVerb, JsonClientsLaunchThisBinaryWithTheOptionsAndRealPaths) {
  const std::vector<std::string> want{real(binary_path()), "--timeout", "30", "--no-watch",
                                      real(fixture("basic.sh"))};
  for (auto [client, root] : {std::pair{"claude-desktop", "mcpServers"},
                              {"cursor", "mcpServers"},
                              {"vscode", "servers"}}) {
    auto run = run_cli({"config", client, "--name", "basic", "--timeout", "30", "--no-watch",
                        fixture("basic.sh")});
    EXPECT_EQ(run.status, 0) << client << ": " << run.err;
    EXPECT_EQ(json_launch(run.out, root, "basic"), want) << client;
    EXPECT_NE(run.err.find(client), std::string::npos) << "stderr says where it goes: " << run.err;
  }
}

TEST(ConfigVerb, CommandLineClientsGetOneLine) {
  const std::string binary = real(binary_path()), script = real(fixture("basic.sh"));
  auto claude = run_cli({"config", "claude-code", fixture("basic.sh")});
  EXPECT_EQ(claude.status, 0) << claude.err;
  EXPECT_EQ(claude.out, "claude mcp add basic -- " + binary + " " + script + "\n");
  auto gemini = run_cli({"config", "gemini", "--warm", "0", fixture("basic.sh")});
  EXPECT_EQ(gemini.status, 0) << gemini.err;
  EXPECT_EQ(gemini.out, "gemini mcp add basic " + binary + " -- --warm 0 " + script + "\n");
  auto codex = run_cli({"config", "codex", "--log-level", "warning", fixture("basic.sh")});
  EXPECT_EQ(codex.status, 0) << codex.err;
  EXPECT_EQ(codex.out, "[mcp_servers.basic]\ncommand = \"" + binary +
                           "\"\nargs = [\"--log-level\", " + "\"warning\", \"" + script + "\"]\n");
}

TEST(ConfigVerb, RelativePathsBecomeAbsoluteFromTheFolderItRunsIn) {
  exec::ScratchDir dir;
  fs::create_directories(dir / "tools");
  fs::copy_file(fixture("basic.sh"), dir / "tools/my tool.sh");
  fs::create_symlink(dir / "tools", dir / "link");
  auto run = run_cli({"config", "vscode", "--config", "link/my tool.sh", "--log-file",
                      "logs/host.log", "link/my tool.sh", "link"},
                     HostOptions{{}, dir.path});
  EXPECT_EQ(run.status, 0) << run.err;
  const std::string tools = real(dir / "tools");
  EXPECT_EQ(json_launch(run.out, "servers", "my-tool"),
            (std::vector<std::string>{real(binary_path()), "--config", tools + "/my tool.sh",
                                      "--log-file", real(dir.path) + "/logs/host.log",
                                      tools + "/my tool.sh", tools}))
      << "the name comes from the first script: 'my tool.sh' is my-tool";
}

TEST(ConfigVerb, ASandboxsPathsBecomeAbsolute) {
  exec::ScratchDir dir;
  fs::copy_file(fixture("basic.sh"), dir / "basic.sh");
  auto run = run_cli({"config", "vscode", "--sandbox", "write=out,no-network", "basic.sh"},
                     HostOptions{{}, dir.path});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(
      json_launch(run.out, "servers", "basic"),
      (std::vector<std::string>{real(binary_path()), "--sandbox",
                                "write=" + dir.path + "/out,no-network", real(dir / "basic.sh")}));
}

TEST(ConfigVerb, TheNameDefaultsToTheFirstScriptOrFolder) {
  auto folder = run_cli({"config", "codex", source_dir() + "/tools/"});
  EXPECT_EQ(folder.status, 0) << folder.err;
  EXPECT_EQ(folder.out.rfind("[mcp_servers.tools]\n", 0), 0u) << folder.out;
  auto script =
      run_cli({"config", "codex", source_dir() + "/tools/movies.sh", fixture("basic.sh")});
  EXPECT_EQ(script.out.rfind("[mcp_servers.movies]\n", 0), 0u) << script.out;
  auto only_dir = run_cli({"config", "codex", "--resource-dir", source_dir() + "/tools"});
  EXPECT_EQ(only_dir.status, 0) << only_dir.err;
  EXPECT_EQ(only_dir.out.rfind("[mcp_servers.shell-tools]\n", 0), 0u) << only_dir.out;
}

TEST(ConfigVerb, TheSnippetsCommandServesTheTools) {
  auto run = run_cli({"config", "claude-desktop", "--timeout", "5", fixture("basic.sh")});
  ASSERT_EQ(run.status, 0) << run.err;
  auto words = json_launch(run.out, "mcpServers", "basic");
  ASSERT_GE(words.size(), 2u);
  EXPECT_EQ(words.front(), real(binary_path()));
  // The same arguments, to the list verb of the same binary.
  std::vector<std::string> list{"list"};
  list.insert(list.end(), words.begin() + 1, words.end());
  auto listed = run_cli(list, HostOptions{{}, "/"});
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("\"name\": \"hi\""), std::string::npos) << listed.out;
}

TEST(ConfigVerb, MisuseIsExitStatusTwoWithAMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases{
      {{"config", "windsurf", fixture("basic.sh")},
       "unknown client \"windsurf\": the supported clients are claude-desktop, claude-code, "
       "vscode, cursor, gemini, codex"},
      {{"config"}, "config needs CLIENT SCRIPT|DIR"},
      {{"config", "codex"}, "no scripts given"},
      {{"config", "codex", "/nonexistent/tools.sh"}, "/nonexistent/tools.sh: No such file"},
      {{"config", "codex", "--config", "/nonexistent.json", fixture("basic.sh")},
       "--config /nonexistent.json: No such file"},
      {{"config", "codex", "--name", "my tools", fixture("basic.sh")},
       "--name must be letters, digits, '-' and '_'"},
      {{"config", "codex", "--http", fixture("basic.sh")}, "--http belongs to the serve verb"},
      {{"list", "--name", "x", fixture("basic.sh")}, "--name belongs to the config verb"},
  };
  for (const auto& c : cases) {
    auto run = run_cli(c.args);
    EXPECT_EQ(run.status, 2) << c.message << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "") << c.message;
  }
}

TEST(ConfigVerb, HelpListsTheVerbAndItsClients) {
  auto run = run_cli({"--help"});
  EXPECT_EQ(run.status, 0);
  EXPECT_NE(run.out.find("mcp-shell-host config CLIENT"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("--name NAME"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace mcpsh::testing
