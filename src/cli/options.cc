#include "cli/options.h"

#include <boost/program_options.hpp>
#include <cmath>
#include <sstream>
#include <tuple>

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
constexpr std::uint64_t kMaxOutputBytes = kGiB;
constexpr std::uint64_t kMaxLineBytes = kGiB;
constexpr std::uint64_t kMinMemoryBytes = kMiB, kMaxMemoryBytes = 1024 * kTiB;
constexpr std::uint64_t kMaxConcurrency = 1024;
constexpr std::uint64_t kMaxWarm = 16;
constexpr std::uint64_t kMaxQueue = 65536;

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
      "tool", po::value<std::string>()->value_name("NAME"), "call: the tool to call")(
      "args", po::value<std::string>()->value_name("JSON"),
      "call: the arguments object (default {})");
  return d;
}

}  // namespace

std::string usage() {
  std::ostringstream out;
  out << "mcp-shell-host " << MCPSH_VERSION
      << " - serve bash functions tool_<name> as MCP tools over stdio\n\n"
      << "Usage:\n"
      << "  mcp-shell-host [serve] [options] SCRIPT|DIR ...   stdio MCP server (the default verb)\n"
      << "  mcp-shell-host list  [options] SCRIPT|DIR ...     print the tools/list result as JSON\n"
      << "  mcp-shell-host call  [options] SCRIPT|DIR ... --tool NAME [--args JSON]\n"
      << "                                                    run one call, print the "
         "CallToolResult;\n"
      << "                                                    exit 0 on success, 1 if isError, 2 "
         "on misuse\n"
      << "  mcp-shell-host check [options] SCRIPT|DIR ...     lint scripts: syntax, metadata, "
         "schemas\n\n"
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
    if (first == "serve" || first == "list" || first == "call" || first == "check")
      args.erase(args.begin());
  }

  po::options_description all = described();
  all.add_options()("paths", po::value<std::vector<std::string>>(), "scripts and directories");
  po::positional_options_description positional;
  positional.add("paths", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
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
                                   {"heartbeat", &o.heartbeat, kMaxHeartbeatSeconds}}) {
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
        {"max-queue", &o.max_queue, std::uint64_t{1}, kMaxQueue}}) {
    if (!vm.count(name)) continue;
    auto v = checked_count(name, text(name), min, max, error);
    if (!v) return fail(error);
    *target = static_cast<std::size_t>(*v);
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
  if (vm.count("tool")) o.tool = vm["tool"].as<std::string>();
  if (vm.count("args")) o.args_json = vm["args"].as<std::string>();
  if (!o.show_help && !o.show_version) {
    if (o.paths.empty()) return fail("no scripts given: name at least one SCRIPT or DIR");
    if (o.verb == Verb::kCall && o.tool.empty()) return fail("call needs --tool NAME");
    if (o.verb != Verb::kCall && (!o.tool.empty() || !o.args_json.empty()))
      return fail("--tool and --args belong to the call verb");
  }
  result.options = std::move(o);
  return result;
}

}  // namespace mcpsh::cli
