// The config verb's snippets, one client at a time: the exact text each client is given,
// and that JSON and shell words read back as the same command and arguments, whatever
// characters the paths hold.
#include "cli/client_config.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace mcpsh::cli {
namespace {

const ServerLaunch kMovies{"movies",
                           "/usr/bin/mcp-shell-host",
                           {"--timeout", "30", "/usr/share/mcp-shell-host/tools/movies.sh"}};

// Paths with every character that needs care in one format or another.
const ServerLaunch kAwkward{
    "odd_name-2",
    "/opt/my tools/mcp-shell-host",
    {"/home/o'brien/a \"b\"\\c.sh", "/tmp/$HOME;`x`*\n\ttab.sh", "/tmp/caf\xC3\xA9.sh", ""}};

std::vector<std::string> json_words(const rapidjson::Value& server) {
  std::vector<std::string> words{server["command"].GetString()};
  for (const auto& arg : server["args"].GetArray()) words.emplace_back(arg.GetString());
  return words;
}

std::vector<std::string> launch_words(const ServerLaunch& launch) {
  std::vector<std::string> words{launch.command};
  words.insert(words.end(), launch.args.begin(), launch.args.end());
  return words;
}

// Splits POSIX shell words of the forms shell_word writes: bare words and '...' quotes,
// with '\'' inside a quote, separated by single spaces.
std::vector<std::string> split_shell(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, in_word = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '\'')
        quoted = false;
      else
        word += c;
    } else if (c == '\'') {
      quoted = in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

TEST(ClientConfig, ParsesEveryClientNameAndNothingElse) {
  for (const char* name : {"claude-desktop", "claude-code", "vscode", "cursor", "gemini", "codex"})
    EXPECT_TRUE(parse_client(name).has_value()) << name;
  for (const char* name : {"", "claude", "VSCode", "code", "codex ", "windsurf"})
    EXPECT_FALSE(parse_client(name).has_value()) << name;
  EXPECT_EQ(client_names(), "claude-desktop, claude-code, vscode, cursor, gemini, codex");
}

TEST(ClientConfig, ClaudeDesktopIsAnMcpServersObject) {
  EXPECT_EQ(client_snippet(Client::kClaudeDesktop, kMovies),
            R"({
  "mcpServers": {
    "movies": {
      "command": "/usr/bin/mcp-shell-host",
      "args": [
        "--timeout",
        "30",
        "/usr/share/mcp-shell-host/tools/movies.sh"
      ]
    }
  }
}
)");
}

TEST(ClientConfig, CursorIsTheSameShapeAsClaudeDesktop) {
  EXPECT_EQ(client_snippet(Client::kCursor, kMovies),
            client_snippet(Client::kClaudeDesktop, kMovies));
}

TEST(ClientConfig, VsCodeIsAServersObjectWithTypeStdio) {
  EXPECT_EQ(client_snippet(Client::kVsCode, kMovies),
            R"({
  "servers": {
    "movies": {
      "type": "stdio",
      "command": "/usr/bin/mcp-shell-host",
      "args": [
        "--timeout",
        "30",
        "/usr/share/mcp-shell-host/tools/movies.sh"
      ]
    }
  }
}
)");
}

TEST(ClientConfig, JsonSnippetsReadBackAsTheSameWords) {
  for (auto [client, root] : {std::pair{Client::kClaudeDesktop, "mcpServers"},
                              {Client::kCursor, "mcpServers"},
                              {Client::kVsCode, "servers"}}) {
    rapidjson::Document d;
    std::string text = client_snippet(client, kAwkward);
    d.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());
    ASSERT_FALSE(d.HasParseError()) << text;
    ASSERT_TRUE(d.IsObject() && d.MemberCount() == 1u && d.HasMember(root)) << text;
    ASSERT_TRUE(d[root].HasMember("odd_name-2")) << text;
    EXPECT_EQ(json_words(d[root]["odd_name-2"]), launch_words(kAwkward)) << text;
  }
}

TEST(ClientConfig, ClaudeCodeIsAnMcpAddCommand) {
  EXPECT_EQ(client_snippet(Client::kClaudeCode, kMovies),
            "claude mcp add movies -- /usr/bin/mcp-shell-host --timeout 30 "
            "/usr/share/mcp-shell-host/tools/movies.sh\n");
}

TEST(ClientConfig, GeminiTakesTheCommandBeforeTheSeparator) {
  EXPECT_EQ(client_snippet(Client::kGemini, kMovies),
            "gemini mcp add movies /usr/bin/mcp-shell-host -- --timeout 30 "
            "/usr/share/mcp-shell-host/tools/movies.sh\n");
  EXPECT_EQ(client_snippet(Client::kGemini, {"x", "/bin/host", {}}),
            "gemini mcp add x /bin/host\n");
}

TEST(ClientConfig, ShellSnippetsSplitBackIntoTheSameWords) {
  std::vector<std::string> claude{"claude", "mcp", "add", "odd_name-2", "--"};
  for (const auto& w : launch_words(kAwkward)) claude.push_back(w);
  EXPECT_EQ(split_shell(client_snippet(Client::kClaudeCode, kAwkward)), claude);

  std::vector<std::string> gemini{"gemini", "mcp", "add", "odd_name-2", kAwkward.command, "--"};
  for (const auto& w : kAwkward.args) gemini.push_back(w);
  EXPECT_EQ(split_shell(client_snippet(Client::kGemini, kAwkward)), gemini);
}

TEST(ClientConfig, ShellWordsQuoteOnlyWhatNeedsIt) {
  EXPECT_EQ(shell_word("/usr/bin/mcp-shell-host"), "/usr/bin/mcp-shell-host");
  EXPECT_EQ(shell_word("--max-output=1M"), "--max-output=1M");
  EXPECT_EQ(shell_word(""), "''");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word("o'brien"), "'o'\\''brien'");
  EXPECT_EQ(shell_word("$HOME"), "'$HOME'");
  EXPECT_EQ(shell_word("~/x"), "'~/x'");
  EXPECT_EQ(shell_word("a*"), "'a*'");
}

TEST(ClientConfig, CodexIsAnMcpServersTable) {
  EXPECT_EQ(client_snippet(Client::kCodex, kMovies),
            "[mcp_servers.movies]\n"
            "command = \"/usr/bin/mcp-shell-host\"\n"
            "args = [\"--timeout\", \"30\", \"/usr/share/mcp-shell-host/tools/movies.sh\"]\n");
  EXPECT_EQ(client_snippet(Client::kCodex, {"x", "/bin/host", {}}),
            "[mcp_servers.x]\ncommand = \"/bin/host\"\nargs = []\n");
}

TEST(ClientConfig, CodexEscapesTomlBasicStrings) {
  EXPECT_EQ(client_snippet(Client::kCodex, kAwkward),
            "[mcp_servers.odd_name-2]\n"
            "command = \"/opt/my tools/mcp-shell-host\"\n"
            "args = [\"/home/o'brien/a \\\"b\\\"\\\\c.sh\", \"/tmp/$HOME;`x`*\\n\\ttab.sh\", "
            "\"/tmp/caf\xC3\xA9.sh\", \"\"]\n");
  EXPECT_EQ(toml_string(std::string("\x01\x7f\b\f\r", 5)), "\"\\u0001\\u007F\\b\\f\\r\"");
  EXPECT_EQ(toml_string("\xFF"), "\"\xEF\xBF\xBD\"") << "invalid UTF-8 becomes U+FFFD";
}

TEST(ClientConfig, ServerNamesAreWhatEveryClientAccepts) {
  for (const char* name : {"movies", "shell-tools", "a_b-2", "X"})
    EXPECT_TRUE(is_valid_server_name(name)) << name;
  for (const char* name : {"", "a b", "a.b", "a/b", "caf\xC3\xA9", "a\"b", "[x]"})
    EXPECT_FALSE(is_valid_server_name(name)) << name;
}

TEST(ClientConfig, EveryClientHasADestination) {
  for (auto client : {Client::kClaudeDesktop, Client::kClaudeCode, Client::kVsCode, Client::kCursor,
                      Client::kGemini, Client::kCodex})
    EXPECT_FALSE(client_destination(client).empty());
}

}  // namespace
}  // namespace mcpsh::cli
