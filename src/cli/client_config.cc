#include "cli/client_config.h"

#include <rapidjson/document.h>

#include <array>
#include <cstdio>
#include <utility>

#include "jsonrpc/response.h"
#include "jsonrpc/utf8.h"

namespace mcpsh::cli {

namespace {

constexpr std::array<std::pair<std::string_view, Client>, 6> kClients{{
    {"claude-desktop", Client::kClaudeDesktop},
    {"claude-code", Client::kClaudeCode},
    {"vscode", Client::kVsCode},
    {"cursor", Client::kCursor},
    {"gemini", Client::kGemini},
    {"codex", Client::kCodex},
}};

rapidjson::Value string_value(const std::string& text, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), a);
}

// {ROOT: {NAME: {["type": "stdio",] "command": ..., "args": [...]}}}, indented.
std::string json_snippet(const char* root, bool with_type, const ServerLaunch& launch) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value server(rapidjson::kObjectType);
  if (with_type) server.AddMember("type", "stdio", a);
  server.AddMember("command", string_value(launch.command, a), a);
  rapidjson::Value args(rapidjson::kArrayType);
  for (const auto& arg : launch.args) args.PushBack(string_value(arg, a), a);
  server.AddMember("args", args, a);
  rapidjson::Value servers(rapidjson::kObjectType);
  servers.AddMember(string_value(launch.name, a), server, a);
  d.AddMember(rapidjson::StringRef(root), servers, a);
  // to_json repairs invalid UTF-8 first, so pretty_json always gets valid JSON.
  return jsonrpc::pretty_json(jsonrpc::to_json(d)) + "\n";
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + shell_word(w);
  return out;
}

std::string codex_snippet(const ServerLaunch& launch) {
  // A valid server name is a bare key; any other is quoted rather than written broken.
  std::string key = is_valid_server_name(launch.name) ? launch.name : toml_string(launch.name);
  std::string out =
      "[mcp_servers." + key + "]\ncommand = " + toml_string(launch.command) + "\nargs = [";
  for (std::size_t i = 0; i < launch.args.size(); ++i)
    out += (i == 0 ? "" : ", ") + toml_string(launch.args[i]);
  return out + "]\n";
}

}  // namespace

std::optional<Client> parse_client(std::string_view name) {
  for (auto [known, client] : kClients)
    if (name == known) return client;
  return std::nullopt;
}

std::string client_names() {
  std::string out;
  for (auto [known, client] : kClients) out += (out.empty() ? "" : ", ") + std::string(known);
  return out;
}

std::string client_destination(Client client) {
  switch (client) {
    case Client::kClaudeDesktop:
      return "merge into claude_desktop_config.json (Settings > Developer > Edit Config)";
    case Client::kClaudeCode:
      return "run in the project's folder (add --scope user for every project)";
    case Client::kVsCode:
      return "merge into .vscode/mcp.json in the workspace";
    case Client::kCursor:
      return "merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)";
    case Client::kGemini:
      return "run in the project's folder (add --scope user for every project)";
    case Client::kCodex:
      return "append to ~/.codex/config.toml";
  }
  return {};
}

bool is_valid_server_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string client_snippet(Client client, const ServerLaunch& launch) {
  switch (client) {
    case Client::kClaudeDesktop:
    case Client::kCursor:
      return json_snippet("mcpServers", false, launch);
    case Client::kVsCode:
      return json_snippet("servers", true, launch);
    case Client::kClaudeCode: {
      std::vector<std::string> words{"claude", "mcp", "add", launch.name, "--", launch.command};
      words.insert(words.end(), launch.args.begin(), launch.args.end());
      return shell_words(words) + "\n";
    }
    case Client::kGemini: {
      // gemini parses options anywhere before `--`: the host's options go after it.
      std::vector<std::string> words{"gemini", "mcp", "add", launch.name, launch.command};
      if (!launch.args.empty()) words.push_back("--");
      words.insert(words.end(), launch.args.begin(), launch.args.end());
      return shell_words(words) + "\n";
    }
    case Client::kCodex:
      return codex_snippet(launch);
  }
  return {};
}

std::string shell_word(std::string_view word) {
  constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
  if (!word.empty() && word.find_first_not_of(kPlain) == std::string_view::npos)
    return std::string(word);
  std::string out = "'";
  for (char c : word) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (char c : jsonrpc::valid_utf8(text)) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (byte < 0x20 || byte == 0x7f) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04X", byte);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace mcpsh::cli
