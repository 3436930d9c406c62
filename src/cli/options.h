#pragma once
// The command line: verb, scripts, options. Parsing only; no side effects.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "asking/sealed_state.h"
#include "diagnostics/log.h"
#include "execution/launch_spec.h"
#include "sandbox/policy.h"

namespace mcpsh::cli {

enum class Verb { kServe, kList, kCall, kCheck, kRead, kPrompt, kConfig };

// An option as written on the command line, by its full name: {"timeout", "30"}; a switch
// such as --no-watch has no value.
struct GivenOption {
  std::string name;
  std::optional<std::string> value;
};

struct Options {
  Verb verb = Verb::kServe;
  std::vector<std::string> paths;
  execution::Limits limits;
  std::size_t max_concurrency = 16;
  // Calls waiting for a concurrency slot; at this many, stdin is no longer read.
  std::size_t max_queue = 64;
  std::size_t warm = 2;  // ready bash processes per script
  std::size_t max_line = 64u << 20;
  std::chrono::milliseconds heartbeat{5000};
  std::optional<std::string> config_file, tools_list_file;
  std::string log_file;
  diagnostics::Level log_level = diagnostics::Level::kInfo;
  std::string audit_log;
  std::vector<std::string> resource_dirs;  // --resource-dir
  sandbox::Policy sandbox;                 // --sandbox: every function's, tools may narrow it
  execution::EnvPolicy env;                // --env-allow, --env-deny
  bool watch = true;                       // serve: reload when the scripts change
  std::size_t page_size = 100;             // list results longer than this are paged
  // --state-key-file: the key of input_required states (null: a random one per process),
  // and --state-ttl: how long such a state stays good.
  std::shared_ptr<const asking::StateSealer> state_sealer;
  std::chrono::seconds state_ttl{3600};
  bool confirm_destructive = false;  // --confirm-destructive
  // The tasks extension: --task-after, --task-ttl, --max-tasks (mcp/protocol_core.h).
  std::chrono::milliseconds task_after{1000};
  std::chrono::seconds task_ttl{3600};
  std::size_t max_tasks = 1000;
  std::string tool;                // call
  std::string args_json;           // call, prompt
  std::string uri;                 // read: the last positional argument
  std::string prompt;              // prompt: the last positional argument
  std::string client;              // config: the first positional argument
  std::string server_name;         // config: --name
  std::vector<GivenOption> given;  // config: the host's options given, in order
  bool show_help = false, show_version = false;

  // Streamable HTTP (serve --http). Unset values are taken from the old core's
  // environment variables, then from defaults, when the server starts (cli/http_settings.h).
  bool http = false;
  std::optional<std::string> listen_host;     // --listen HOST:PORT
  std::optional<std::uint16_t> listen_port;   // --listen [HOST:]PORT
  std::optional<std::string> metrics_host;    // --metrics-listen HOST:PORT
  std::optional<std::uint16_t> metrics_port;  // --metrics-listen [HOST:]PORT
  std::optional<std::string> http_path;       // --http-path
  std::vector<std::string> allow_origins;     // --allow-origin, repeated or comma lists
  std::optional<std::string> auth_token_file;
  std::optional<std::size_t> max_body;  // default: max_line
  std::size_t max_header = 16u << 10;
  std::size_t max_connections = 1024;
  std::chrono::milliseconds idle_timeout{60000};
  std::chrono::milliseconds header_timeout{10000};
};

struct ParseResult {
  std::optional<Options> options;
  std::string error;  // set when options is empty
};

ParseResult parse_options(int argc, char** argv);
std::string usage();

}  // namespace mcpsh::cli
