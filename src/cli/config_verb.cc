// config: prints what an MCP client needs to launch this host with the scripts and options
// given. Clients start servers from a folder of their own choosing, so every path in the
// snippet is absolute: the running binary (its real path), the scripts and folders (real
// paths; each must exist), and the paths the options name.
//
// Exit status: 0 with the snippet on stdout (and where it goes on stderr); 2 on misuse (an
// unknown client, an invalid --name, a script or file that does not exist).
#include <filesystem>
#include <iostream>
#include <system_error>

#include "cli/client_config.h"
#include "cli/verbs.h"
#include "jsonrpc/utf8.h"
#include "sandbox/policy.h"

namespace mcpsh::cli {

namespace {

namespace fs = std::filesystem;

// A usage error: printed as main prints those of the parser.
int misuse(const std::string& message) {
  std::cerr << "mcp-shell-host: " << message << "\nTry 'mcp-shell-host --help'.\n";
  return 2;
}

// Options whose value is a file or folder the host reads: resolved like the scripts.
bool names_input(const std::string& option) {
  return option == "config" || option == "tools-list" || option == "resource-dir";
}

// Options whose value is a file the host writes: made absolute; it need not exist yet.
bool names_output(const std::string& option) {
  return option == "log-file" || option == "audit-log";
}

// The real path of an existing file or folder, or an error message naming `what`.
std::optional<std::string> real_path(const std::string& path, const std::string& what,
                                     std::string& error) {
  std::error_code ec;
  fs::path resolved = fs::canonical(path, ec);
  if (ec) {
    error = what + " " + path + ": " + ec.message();
    return std::nullopt;
  }
  return resolved.string();
}

// The server's default name: the first script's file name without ".sh" (a folder's name),
// every character a client refuses replaced by '-'; "shell-tools" when nothing is left.
std::string default_name(const std::vector<std::string>& resolved_paths) {
  std::string name;
  if (!resolved_paths.empty()) {
    fs::path first(resolved_paths.front());
    name = first.filename().string();
    if (first.extension() == ".sh" && name.size() > 3) name.resize(name.size() - 3);
  }
  for (char& c : name)
    if (!is_valid_server_name(std::string_view(&c, 1))) c = '-';
  const auto first = name.find_first_not_of('-');
  if (first == std::string::npos) return "shell-tools";
  name.erase(0, first);
  name.erase(name.find_last_not_of('-') + 1);
  return name;
}

}  // namespace

int client_config(const Options& options) {
  auto client = parse_client(options.client);
  if (!client)
    return misuse("unknown client \"" + options.client + "\": the supported clients are " +
                  client_names());

  std::string error;
  ServerLaunch launch;
  // The binary clients will start: this one, wherever it was started from.
  std::error_code ec;
  launch.command = fs::canonical("/proc/self/exe", ec).string();
  if (ec) {
    std::cerr << "mcp-shell-host: cannot find this program's path in /proc/self/exe: "
              << ec.message() << "\n";
    return 1;
  }

  for (const auto& given : options.given) {
    launch.args.push_back("--" + given.name);
    if (!given.value) continue;
    std::string value = *given.value;
    if (names_input(given.name)) {
      auto resolved = real_path(value, "--" + given.name, error);
      if (!resolved) return misuse(error);
      value = *resolved;
    } else if (given.name == "sandbox") {
      value = sandbox::describe(options.sandbox);  // its paths made absolute, as parsed
    } else if (names_output(given.name) && !value.empty()) {
      value = fs::weakly_canonical(fs::absolute(value), ec).string();
      if (ec) return misuse("--" + given.name + " " + *given.value + ": " + ec.message());
    }
    launch.args.push_back(value);
  }
  std::vector<std::string> scripts;
  for (const auto& path : options.paths) {
    auto resolved = real_path(path, "script or folder", error);
    if (!resolved) return misuse(error);
    scripts.push_back(*resolved);
  }
  launch.args.insert(launch.args.end(), scripts.begin(), scripts.end());
  // Client configurations are UTF-8 text: a path that is not cannot be written there.
  std::vector<const std::string*> words{&launch.command};
  for (const auto& arg : launch.args) words.push_back(&arg);
  for (const auto* word : words)
    if (!jsonrpc::is_valid_utf8(*word))
      return misuse("\"" + jsonrpc::valid_utf8(*word) +
                    "\" is not valid UTF-8, which client configurations need");

  launch.name = options.server_name.empty() ? default_name(scripts) : options.server_name;
  if (!is_valid_server_name(launch.name))
    return misuse(
        "--name must be letters, digits, '-' and '_' (what every client accepts), got \"" +
        launch.name + "\"");

  std::cout << client_snippet(*client, launch);
  std::cerr << options.client << ": " << client_destination(*client) << "\n";
  return 0;
}

}  // namespace mcpsh::cli
