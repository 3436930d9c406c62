#include "cli/options.h"

#include <boost/program_options.hpp>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string_view>
#include <tuple>
#include <variant>

namespace mcpsh::cli {

namespace po = boost::program_options;

namespace {

// Every number on the command line is checked against a range before it is converted:
// a double outside the range of the integer it becomes is undefined behaviour, and huge
// values overflow later arithmetic (deadlines, buffer sizes).

constexpr std::uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024, kTiB = kGiB * 1024;

// Bytes as a double: "65536", "64k", "16M", "1.5G", "2T"; nullopt if it is not a size.
std::optional<double> size_value(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return std::nullopt;
  std::string unit(end);
  double scale = 1;
  if (unit == "k" || unit == "K" || unit == "KiB")
    scale = kKiB;
  else if (unit == "m" || unit == "M" || unit == "MiB")
    scale = kMiB;
  else if (unit == "g" || unit == "G" || unit == "GiB")
    scale = kGiB;
  else if (unit == "t" || unit == "T" || unit == "TiB")
    scale = kTiB;
  else if (!unit.empty())
    return std::nullopt;
  if (std::isnan(v)) return std::nullopt;
  return v * scale;
}

// "1G" for 1073741824: the largest unit that divides it.
std::string size_text(std::uint64_t bytes) {
  for (auto [unit, scale] : {std::pair{"T", kTiB}, {"G", kGiB}, {"M", kMiB}, {"k", kKiB}})
    if (bytes >= scale && bytes % scale == 0) return std::to_string(bytes / scale) + unit;
  return std::to_string(bytes);
}

std::string number_text(double v) {
  if (v == std::floor(v)) return std::to_string(static_cast<long long>(v));
  std::ostringstream out;
  out << v;
  return out.str();
}

struct Checked {
  std::optional<std::uint64_t> value;
  std::string error;  // set when value is empty
};

Checked checked_size(const std::string& name, const std::string& text, std::uint64_t min,
                     std::uint64_t max) {
  auto v = size_value(text);
  if (!v)
    return {std::nullopt,
            "--" + name + " needs a size such as 65536, 64k or 16M, got \"" + text + "\""};
  if (!(*v >= static_cast<double>(min) && *v <= static_cast<double>(max)))
    return {std::nullopt, "--" + name + " must be between " + size_text(min) + " and " +
                              size_text(max) + ", got \"" + text + "\""};
  return {static_cast<std::uint64_t>(*v), {}};
}

// Seconds, to the millisecond; a value above 0 is at least 1 ms (0 often means "none").
std::optional<std::chrono::milliseconds> checked_seconds(const std::string& name,
                                                         const std::string& text, double min,
                                                         double max, std::string& error) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || std::isnan(v)) {
    error = "--" + name + " needs a number of seconds, got \"" + text + "\"";
    return std::nullopt;
  }
  if (!(v >= min && v <= max)) {
    error = "--" + name + " must be between " + number_text(min) + " and " + number_text(max) +
            " seconds, got \"" + text + "\"";
    return std::nullopt;
  }
  auto ms = std::llround(v * 1000);
  if (v > 0 && ms == 0) ms = 1;
  return std::chrono::milliseconds(ms);
}

// A whole number in [min, max]; digits only (no sign, no exponent).
std::optional<std::uint64_t> checked_count(const std::string& name, const std::string& text,
                                           std::uint64_t min, std::uint64_t max,
                                           std::string& error) {
  const bool digits = !text.empty() && text.size() <= 19 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  std::uint64_t v = digits ? std::stoull(text) : 0;
  if (!digits || v < min || v > max) {
    error = "--" + name + " must be a whole number between " + std::to_string(min) + " and " +
            std::to_string(max) + ", got \"" + text + "\"";
    return std::nullopt;
  }
  return v;
}

// The ranges, shown in --help too.
constexpr double kMaxTimeoutSeconds = 365.0 * 24 * 3600;
constexpr double kMaxKillGraceSeconds = 3600;
constexpr double kMaxHeartbeatSeconds = 24 * 3600;
constexpr double kMaxTaskAfterSeconds = 3600;
constexpr std::uint64_t kMaxOutputBytes = kGiB;
constexpr std::uint64_t kMaxLineBytes = kGiB;
constexpr std::uint64_t kMinMemoryBytes = kMiB, kMaxMemoryBytes = 1024 * kTiB;
constexpr std::uint64_t kMaxConcurrency = 1024;
constexpr std::uint64_t kMaxWarm = 16;
constexpr std::uint64_t kMaxQueue = 65536;
constexpr std::uint64_t kMinHeaderBytes = kKiB, kMaxHeaderBytes = kMiB;
constexpr std::uint64_t kMaxConnections = 65536;
constexpr double kMinHttpTimeoutSeconds = 0.001, kMaxHttpTimeoutSeconds = 24 * 3600;

// The HTTP options: only with --http.
const char* const kHttpOptions[] = {
    "listen",     "http-path",       "allow-origin", "auth-token-file", "max-body",
    "max-header", "max-connections", "idle-timeout", "header-timeout",  "metrics-listen"};

// "[HOST:]PORT", HOST a name, an IPv4 literal or a bracketed IPv6 literal, for the option
// `name` (listen, metrics-listen).
std::optional<std::string> parse_listen(const std::string& name, const std::string& text,
                                        std::optional<std::string>& host_out,
                                        std::optional<std::uint16_t>& port_out) {
  const std::string needs =
      "--" + name + " needs [HOST:]PORT, e.g. 127.0.0.1:3000 or [::1]:3000, got \"" + text + "\"";
  std::string host, port = text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return needs;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (auto colon = text.rfind(':'); colon != std::string::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.empty() || host.find(':') != std::string::npos) return needs;
  }
  std::string error;
  auto p = checked_count(name, port, 0, 65535, error);
  if (!p) return "--" + name + " needs a port between 0 and 65535, got \"" + text + "\"";
  if (!host.empty()) host_out = host;
  port_out = static_cast<std::uint16_t>(*p);
  return std::nullopt;
}

po::options_description described() {
  po::options_description d("Options");
  d.add_options()("help,h", "show this help")("version", "show the version")(
      "timeout", po::value<std::string>()->value_name("SECONDS"),
      "default time limit of one tool call; 0 = none (default 60, at most 365 days)")(
      "max-output", po::value<std::string>()->value_name("BYTES"),
      "stdout kept per call, e.g. 128k (default 128k, at most 1G)")(
      "max-stderr", po::value<std::string>()->value_name("BYTES"),
      "stderr tail kept per call (default 16k, at most 1G)")(
      "max-concurrency", po::value<std::string>()->value_name("N"),
      "tool calls running at once, 1 to 1024; more wait (default 16)")(
      "max-queue", po::value<std::string>()->value_name("N"),
      "tool calls waiting for a slot before stdin is no longer read (default 64)")(
      "warm", po::value<std::string>()->value_name("N"),
      "bash processes per script started ahead, each for one call, 0 to 16; 0 = spawn per call "
      "(default 2)")("kill-grace", po::value<std::string>()->value_name("SECONDS"),
                     "SIGTERM to SIGKILL delay (default 2, at most 3600)")(
      "cpu-limit", po::value<std::string>()->value_name("SECONDS"),
      "CPU time limit per tool process (RLIMIT_CPU), whole seconds")(
      "memory-limit", po::value<std::string>()->value_name("BYTES"),
      "address-space limit per tool process (RLIMIT_AS), e.g. 512M (at least 1M)")(
      "heartbeat", po::value<std::string>()->value_name("SECONDS"),
      "progress heartbeat for silent calls with a progress token; 0 = off (default 5)")(
      "max-line", po::value<std::string>()->value_name("BYTES"),
      "largest request line accepted (default 64M, at most 1G)")(
      "config", po::value<std::string>()->value_name("FILE"),
      "old-core config file (server/discover body)")("tools-list",
                                                     po::value<std::string>()->value_name("FILE"),
                                                     "old-core tools file ({\"tools\":[...]})")(
      "log-file", po::value<std::string>()->value_name("FILE"),
      "diagnostic log file (default: stderr)")("log-level",
                                               po::value<std::string>()->value_name("LEVEL"),
                                               "debug, info, warning, error, off (default info)")(
      "audit-log", po::value<std::string>()->value_name("FILE"),
      "append one JSON line per request to FILE")(
      "resource-dir", po::value<std::vector<std::string>>()->value_name("DIR"),
      "publish the files under DIR as read-only resources (file:// URIs), repeatable")(
      "no-watch", "serve: do not reload when the scripts change")(
      "sandbox", po::value<std::string>()->value_name("WORDS"),
      "confine every tool: read-only, write=PATH, read=PATH, no-network, connect=PORT, "
      "exec=PROG, isolate, procs=N, none; "
      "comma-separated (default none); a tool's @sandbox can only narrow it")(
      "env-allow", po::value<std::vector<std::string>>()->value_name("PATTERNS"),
      "pass tools only these host variables (shell patterns, comma-separated, repeatable), "
      "besides PATH, HOME, LANG and the like and a tool's @env (default: all)")(
      "env-deny", po::value<std::vector<std::string>>()->value_name("PATTERNS"),
      "never pass tools these host variables, e.g. 'AWS_*,*_TOKEN' (repeatable)")(
      "state-key-file", po::value<std::string>()->value_name("FILE"),
      "seal the requestState of tools that ask with a key from FILE (32 bytes or more; "
      "share it between instances behind one load balancer; default: a random key)")(
      "confirm-destructive",
      "ask the user to confirm every call of a tool annotated destructiveHint, as @confirm does")(
      "state-ttl", po::value<std::string>()->value_name("SECONDS"),
      "how long a client may take to answer a tool's question, 1 to 86400 (default 3600)")(
      "task-after", po::value<std::string>()->value_name("SECONDS"),
      "a call of a @task tool, from a client that takes tasks, becomes a task once it has "
      "run this long, 0 to 3600 (default 1; mcp_task makes it one sooner)")(
      "task-ttl", po::value<std::string>()->value_name("SECONDS"),
      "how long a task is kept once it has ended or waits for input, 1 to 604800 "
      "(default 3600)")(
      "max-tasks", po::value<std::string>()->value_name("N"),
      "keep at most N tasks, 1 to 100000 (default 1000; when full, the task that ended "
      "longest ago makes room)")(
      "page-size", po::value<std::string>()->value_name("N"),
      "list results longer than N items come in pages (cursor), 1 to 10000 (default 100)")(
      "tool", po::value<std::string>()->value_name("NAME"), "call: the tool to call")(
      "args", po::value<std::string>()->value_name("JSON"),
      "call, prompt: the arguments object (default {})")(
      "name", po::value<std::string>()->value_name("NAME"),
      "config: the server's name in the client (default: the first script's name)");
  po::options_description h("Streamable HTTP (serve --http)");
  h.add_options()("http", "serve over HTTP instead of stdio")(
      "listen", po::value<std::string>()->value_name("[HOST:]PORT"),
      "address to listen on; port 0 picks a free one (default: MCP_HTTP_BIND:MCP_HTTP_PORT, "
      "else 127.0.0.1:3000)")("http-path", po::value<std::string>()->value_name("PATH"),
                              "the MCP endpoint (default: MCP_HTTP_PATH, else /mcp)")(
      "allow-origin", po::value<std::vector<std::string>>()->value_name("ORIGIN"),
      "an allowed Origin, repeatable or a comma list; one without a port admits any port "
      "(default: MCP_ALLOWED_ORIGINS, else http://localhost,http://127.0.0.1)")(
      "auth-token-file", po::value<std::string>()->value_name("FILE"),
      "require Authorization: Bearer <the file's content>")(
      "max-body", po::value<std::string>()->value_name("BYTES"),
      "largest request body, 413 beyond (default: --max-line, 64M)")(
      "max-header", po::value<std::string>()->value_name("BYTES"),
      "largest request header, 431 beyond (default 16k, 1k to 1M)")(
      "max-connections", po::value<std::string>()->value_name("N"),
      "open connections, 503 beyond (default 1024, at most 65536)")(
      "idle-timeout", po::value<std::string>()->value_name("SECONDS"),
      "close a keep-alive connection idle this long; also bounds reading a body and each "
      "write (default 60)")("header-timeout", po::value<std::string>()->value_name("SECONDS"),
                            "time to send a request header (default 10)")(
      "metrics-listen", po::value<std::string>()->value_name("[HOST:]PORT"),
      "serve /metrics on this address instead (with /healthz and /readyz; HOST defaults to "
      "--listen's)");
  d.add(h);
  return d;
}

}  // namespace

std::string usage() {
  std::ostringstream out;
  out << "mcp-shell-host " << MCPSH_VERSION
      << " - serve bash functions tool_<name>, resource_<name>, prompt_<name> over MCP (stdio or "
         "HTTP)\n\n"
      << "Usage:\n"
      << "  mcp-shell-host [serve] [options] SCRIPT|DIR ...   stdio MCP server (the default verb)\n"
      << "  mcp-shell-host --http [options] SCRIPT|DIR ...    Streamable HTTP MCP server\n"
      << "  mcp-shell-host list [options] SCRIPT|DIR ...      print the tools, resources, "
         "templates\n"
      << "                                                    and prompts as JSON\n"
      << "  mcp-shell-host call [options] SCRIPT|DIR ... --tool NAME [--args JSON]\n"
      << "                                                    run one call, print the "
         "CallToolResult;\n"
      << "                                                    exit 0 on success, 1 if isError, 2 "
         "on misuse\n"
      << "  mcp-shell-host read [options] SCRIPT|DIR ... URI\n"
      << "                                                    read one resource, print the "
         "result;\n"
      << "                                                    exit 0, 1 if it failed, 2 on "
         "misuse\n"
      << "  mcp-shell-host prompt [options] SCRIPT|DIR ... NAME [--args JSON]\n"
      << "                                                    get one prompt, print its "
         "messages;\n"
      << "                                                    exit 0, 1 if it failed, 2 on "
         "misuse\n"
      << "  mcp-shell-host check [options] SCRIPT|DIR ...     lint scripts: syntax, metadata, "
         "schemas\n"
      << "  mcp-shell-host config CLIENT [--name NAME] [options] SCRIPT|DIR ...\n"
      << "                                                    print what CLIENT needs to launch "
         "this\n"
      << "                                                    server with these options; CLIENT "
         "is one\n"
      << "                                                    of claude-desktop, claude-code, "
         "vscode,\n"
      << "                                                    cursor, gemini, codex\n\n"
      << "A DIR stands for every *.sh file in it.\n\n"
      << described();
  return out.str();
}

ParseResult parse_options(int argc, char** argv) {
  ParseResult result;
  Options o;
  o.limits.timeout = std::chrono::seconds(60);
  o.limits.max_stdout = 128 << 10;
  o.limits.max_stderr = 16 << 10;
  o.limits.kill_grace = std::chrono::seconds(2);

  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty()) {
    const std::string& first = args.front();
    if (first == "serve")
      o.verb = Verb::kServe;
    else if (first == "list")
      o.verb = Verb::kList;
    else if (first == "call")
      o.verb = Verb::kCall;
    else if (first == "check")
      o.verb = Verb::kCheck;
    else if (first == "read")
      o.verb = Verb::kRead;
    else if (first == "prompt")
      o.verb = Verb::kPrompt;
    else if (first == "config")
      o.verb = Verb::kConfig;
    if (first == "serve" || first == "list" || first == "call" || first == "check" ||
        first == "read" || first == "prompt" || first == "config")
      args.erase(args.begin());
  }

  po::options_description all = described();
  all.add_options()("paths", po::value<std::vector<std::string>>(), "scripts and directories");
  po::positional_options_description positional;
  positional.add("paths", -1);
  po::variables_map vm;
  try {
    auto parsed = po::command_line_parser(args).options(all).positional(positional).run();
    po::store(parsed, vm);
    po::notify(vm);
    // config repeats the host's options in the client's command line, by their full names.
    if (o.verb == Verb::kConfig)
      for (const auto& option : parsed.options) {
        if (option.string_key == "paths" || option.string_key == "name") continue;
        o.given.push_back({option.string_key, option.value.empty()
                                                  ? std::nullopt
                                                  : std::optional(option.value.front())});
      }
  } catch (const po::error& e) {
    result.error = e.what();
    return result;
  }
  auto fail = [&](std::string text) {
    result.error = std::move(text);
    return result;
  };

  o.show_help = vm.count("help") > 0;
  o.show_version = vm.count("version") > 0;
  if (vm.count("paths")) o.paths = vm["paths"].as<std::vector<std::string>>();
  auto text = [&](const char* name) { return vm[name].as<std::string>(); };
  std::string error;
  for (auto [name, target, max] : {std::tuple{"timeout", &o.limits.timeout, kMaxTimeoutSeconds},
                                   {"kill-grace", &o.limits.kill_grace, kMaxKillGraceSeconds},
                                   {"heartbeat", &o.heartbeat, kMaxHeartbeatSeconds},
                                   {"task-after", &o.task_after, kMaxTaskAfterSeconds}}) {
    if (!vm.count(name)) continue;
    auto v = checked_seconds(name, text(name), 0, max, error);
    if (!v) return fail(error);
    *target = *v;
  }
  if (vm.count("cpu-limit")) {
    auto v = checked_count("cpu-limit", text("cpu-limit"), 1,
                           static_cast<std::uint64_t>(kMaxTimeoutSeconds), error);
    if (!v) return fail(error);
    o.limits.cpu_seconds = *v;
  }
  for (auto [name, target, min, max] :
       {std::tuple{"max-output", &o.limits.max_stdout, std::uint64_t{0}, kMaxOutputBytes},
        {"max-stderr", &o.limits.max_stderr, std::uint64_t{0}, kMaxOutputBytes},
        {"max-line", &o.max_line, std::uint64_t{1}, kMaxLineBytes}}) {
    if (!vm.count(name)) continue;
    auto v = checked_size(name, text(name), min, max);
    if (!v.value) return fail(v.error);
    *target = static_cast<std::size_t>(*v.value);
  }
  if (vm.count("memory-limit")) {
    auto v = checked_size("memory-limit", text("memory-limit"), kMinMemoryBytes, kMaxMemoryBytes);
    if (!v.value) return fail(v.error);
    o.limits.memory_bytes = *v.value;
  }
  for (auto [name, target, min, max] :
       {std::tuple{"max-concurrency", &o.max_concurrency, std::uint64_t{1}, kMaxConcurrency},
        {"warm", &o.warm, std::uint64_t{0}, kMaxWarm},
        {"max-queue", &o.max_queue, std::uint64_t{1}, kMaxQueue},
        {"page-size", &o.page_size, std::uint64_t{1}, std::uint64_t{10000}},
        {"max-tasks", &o.max_tasks, std::uint64_t{1}, std::uint64_t{100000}}}) {
    if (!vm.count(name)) continue;
    auto v = checked_count(name, text(name), min, max, error);
    if (!v) return fail(error);
    *target = static_cast<std::size_t>(*v);
  }
  o.confirm_destructive = vm.count("confirm-destructive") > 0;
  if (vm.count("state-ttl")) {
    auto v = checked_count("state-ttl", text("state-ttl"), 1, 86400, error);
    if (!v) return fail(error);
    o.state_ttl = std::chrono::seconds(*v);
  }
  if (vm.count("task-ttl")) {
    auto v = checked_count("task-ttl", text("task-ttl"), 1, 7 * 86400, error);
    if (!v) return fail(error);
    o.task_ttl = std::chrono::seconds(*v);
  }
  if (vm.count("state-key-file")) {
    auto sealer = asking::StateSealer::from_key_file(text("state-key-file"), error);
    if (!sealer) return fail("--state-key-file: " + error);
    o.state_sealer = std::make_shared<const asking::StateSealer>(std::move(*sealer));
  }
  if (vm.count("config")) o.config_file = vm["config"].as<std::string>();
  if (vm.count("tools-list")) o.tools_list_file = vm["tools-list"].as<std::string>();
  if (vm.count("log-file")) o.log_file = vm["log-file"].as<std::string>();
  if (vm.count("log-level")) {
    auto level = diagnostics::parse_level(vm["log-level"].as<std::string>());
    if (!level) return fail("--log-level must be one of debug, info, warning, error, off");
    o.log_level = *level;
  }
  if (vm.count("audit-log")) o.audit_log = vm["audit-log"].as<std::string>();
  o.watch = vm.count("no-watch") == 0;
  if (vm.count("resource-dir")) o.resource_dirs = vm["resource-dir"].as<std::vector<std::string>>();
  if (vm.count("sandbox")) {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    auto parsed = sandbox::parse_policy(text("sandbox"), cwd);
    if (auto* error = std::get_if<std::string>(&parsed)) return fail("--" + *error);
    o.sandbox = std::get<sandbox::Policy>(std::move(parsed));
  }
  auto patterns = [&](const char* name) {
    std::vector<std::string> out;
    for (const auto& list : vm[name].as<std::vector<std::string>>()) {
      std::string word;
      for (char c : list + ",") {
        if (c == ',') {
          if (!word.empty()) out.push_back(std::move(word));
          word.clear();
        } else if (c != ' ') {
          word += c;
        }
      }
    }
    return out;
  };
  if (vm.count("env-allow")) o.env.allow = patterns("env-allow");
  if (vm.count("env-deny")) o.env.deny = patterns("env-deny");
  if (vm.count("tool")) o.tool = vm["tool"].as<std::string>();
  if (vm.count("args")) o.args_json = vm["args"].as<std::string>();
  if (vm.count("name")) o.server_name = vm["name"].as<std::string>();
  o.http = vm.count("http") > 0;
  for (const char* name : kHttpOptions)
    if (vm.count(name) && !o.http) return fail(std::string("--") + name + " needs --http");
  if (o.http && o.verb != Verb::kServe) return fail("--http belongs to the serve verb");
  if (vm.count("listen"))
    if (auto e = parse_listen("listen", text("listen"), o.listen_host, o.listen_port))
      return fail(*e);
  if (vm.count("metrics-listen"))
    if (auto e =
            parse_listen("metrics-listen", text("metrics-listen"), o.metrics_host, o.metrics_port))
      return fail(*e);
  if (vm.count("http-path")) {
    o.http_path = text("http-path");
    if (o.http_path->empty() || o.http_path->front() != '/' ||
        o.http_path->find_first_of("?# \t\r\n") != std::string::npos)
      return fail("--http-path needs a path starting with / (no spaces, ? or #), got \"" +
                  *o.http_path + "\"");
  }
  if (vm.count("allow-origin"))
    for (const auto& item : vm["allow-origin"].as<std::vector<std::string>>()) {
      std::string_view rest = item;
      while (true) {
        auto comma = rest.find(',');
        std::string one(rest.substr(0, comma));
        one.erase(0, one.find_first_not_of(" \t"));
        one.erase(one.find_last_not_of(" \t") + 1);
        if (one.find("://") == std::string::npos || one.find("://") == 0)
          return fail("--allow-origin needs origins such as http://localhost:8080, got \"" + item +
                      "\"");
        o.allow_origins.push_back(one);
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  if (vm.count("auth-token-file")) o.auth_token_file = text("auth-token-file");
  if (vm.count("max-body")) {
    auto v = checked_size("max-body", text("max-body"), 1, kMaxLineBytes);
    if (!v.value) return fail(v.error);
    o.max_body = static_cast<std::size_t>(*v.value);
  }
  if (vm.count("max-header")) {
    auto v = checked_size("max-header", text("max-header"), kMinHeaderBytes, kMaxHeaderBytes);
    if (!v.value) return fail(v.error);
    o.max_header = static_cast<std::size_t>(*v.value);
  }
  if (vm.count("max-connections")) {
    auto v = checked_count("max-connections", text("max-connections"), 1, kMaxConnections, error);
    if (!v) return fail(error);
    o.max_connections = static_cast<std::size_t>(*v);
  }
  for (auto [name, target] :
       {std::pair{"idle-timeout", &o.idle_timeout}, {"header-timeout", &o.header_timeout}}) {
    if (!vm.count(name)) continue;
    auto v =
        checked_seconds(name, text(name), kMinHttpTimeoutSeconds, kMaxHttpTimeoutSeconds, error);
    if (!v) return fail(error);
    *target = *v;
  }
  if (!o.show_help && !o.show_version) {
    // read and prompt take what they ask for as their last word: a URI or a prompt name.
    if (o.verb == Verb::kRead || o.verb == Verb::kPrompt) {
      const bool read = o.verb == Verb::kRead;
      if (o.paths.empty() || (o.paths.size() == 1 && (!read || o.resource_dirs.empty())))
        return fail(read ? "read needs SCRIPT|DIR ... URI (or --resource-dir DIR URI)"
                         : "prompt needs SCRIPT|DIR ... NAME [--args JSON]");
      (read ? o.uri : o.prompt) = o.paths.back();
      o.paths.pop_back();
    }
    // config takes the client as its first word.
    if (o.verb == Verb::kConfig) {
      if (o.paths.empty()) return fail("config needs CLIENT SCRIPT|DIR ...");
      o.client = o.paths.front();
      o.paths.erase(o.paths.begin());
    }
    // A published folder is enough to serve: no function needs to be written for it.
    if (o.paths.empty() && o.resource_dirs.empty())
      return fail("no scripts given: name at least one SCRIPT or DIR (or --resource-dir DIR)");
    if (o.verb == Verb::kCall && o.tool.empty()) return fail("call needs --tool NAME");
    if (o.verb != Verb::kCall && !o.tool.empty()) return fail("--tool belongs to the call verb");
    if (o.verb != Verb::kCall && o.verb != Verb::kPrompt && !o.args_json.empty())
      return fail("--args belongs to the call and prompt verbs");
    if (o.verb != Verb::kConfig && vm.count("name"))
      return fail("--name belongs to the config verb");
  }
  result.options = std::move(o);
  return result;
}

}  // namespace mcpsh::cli
