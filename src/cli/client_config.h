#pragma once
// The configuration snippets of the `config` verb: how each MCP client is told to launch a
// stdio server, as text to paste into its file or to run in a shell. Formatting only: no
// I/O, no path resolution (cli/config_verb.cc gives it absolute paths).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcpsh::cli {

enum class Client { kClaudeDesktop, kClaudeCode, kVsCode, kCursor, kGemini, kCodex };

// "claude-desktop" -> kClaudeDesktop, ...; nullopt for a name no client has.
std::optional<Client> parse_client(std::string_view name);

// The names parse_client accepts, comma-separated, for error messages and --help.
std::string client_names();

// Where the snippet of `client` goes, in words (one line, for stderr).
std::string client_destination(Client client);

// One stdio server as a client launches it.
struct ServerLaunch {
  std::string name;               // the key in the client's list; a valid server name
  std::string command;            // the executable, an absolute path
  std::vector<std::string> args;  // its arguments, in order
};

// Server names every supported client accepts as they are: letters, digits, '-' and '_'
// (Codex and Claude Code refuse others; TOML takes them as bare keys).
bool is_valid_server_name(std::string_view name);

// The snippet for `client`, ending with a newline:
//   claude-desktop, cursor  {"mcpServers":{NAME:{"command":...,"args":[...]}}}  (indented)
//   vscode                  {"servers":{NAME:{"type":"stdio","command":...,"args":[...]}}}
//   claude-code             claude mcp add NAME -- COMMAND ARGS...   (shell words)
//   gemini                  gemini mcp add NAME COMMAND -- ARGS...   (shell words; no
//                           `--` without ARGS)
//   codex                   [mcp_servers.NAME] with command = "..." and args = [...]
// JSON strings are escaped by the JSON writer (invalid UTF-8 becomes U+FFFD), TOML strings
// as TOML basic strings, shell words with single quotes where they need quoting.
std::string client_snippet(Client client, const ServerLaunch& launch);

// `word` as one POSIX shell word: as it is when it holds only characters no shell treats
// specially, else in single quotes (a ' inside written as '\'').
std::string shell_word(std::string_view word);

// `text` as a TOML basic string, quotes included.
std::string toml_string(std::string_view text);

}  // namespace mcpsh::cli
