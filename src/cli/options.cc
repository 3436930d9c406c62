#include "cli/options.h"

#include <boost/program_options.hpp>
#include <cmath>
#include <sstream>

namespace mcpsh::cli {

namespace po = boost::program_options;

namespace {

// "65536", "64k", "16M", "1G"
std::optional<std::uint64_t> parse_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  std::string unit(end);
  double scale = 1;
  if (unit == "k" || unit == "K" || unit == "KiB")
    scale = 1024;
  else if (unit == "m" || unit == "M" || unit == "MiB")
    scale = 1024 * 1024;
  else if (unit == "g" || unit == "G" || unit == "GiB")
    scale = 1024.0 * 1024 * 1024;
  else if (!unit.empty())
    return std::nullopt;
  if (!(v >= 0) || !std::isfinite(v)) return std::nullopt;
  return static_cast<std::uint64_t>(v * scale);
}

std::optional<std::chrono::milliseconds> parse_seconds(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v)) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(std::llround(v * 1000)));
}

po::options_description described() {
  po::options_description d("Options");
  d.add_options()("help,h", "show this help")("version", "show the version")(
      "timeout", po::value<std::string>()->value_name("SECONDS"),
      "default time limit of one tool call; 0 = none (default 60)")(
      "max-output", po::value<std::string>()->value_name("BYTES"),
      "stdout kept per call, e.g. 128k (default 128k)")(
      "max-stderr", po::value<std::string>()->value_name("BYTES"),
      "stderr tail kept per call (default 16k)")(
      "max-concurrency", po::value<std::size_t>()->value_name("N"),
      "tool calls running at once; more wait (default 16)")(
      "warm", po::value<std::size_t>()->value_name("N"),
      "bash processes per script started ahead, each for one call; 0 = spawn per call (default 2)")(
      "kill-grace", po::value<std::string>()->value_name("SECONDS"),
      "SIGTERM to SIGKILL delay (default 2)")("cpu-limit",
                                              po::value<std::string>()->value_name("SECONDS"),
                                              "CPU time limit per tool process (RLIMIT_CPU)")(
      "memory-limit", po::value<std::string>()->value_name("BYTES"),
      "address-space limit per tool process (RLIMIT_AS), e.g. 512M")(
      "heartbeat", po::value<std::string>()->value_name("SECONDS"),
      "progress heartbeat for silent calls with a progress token; 0 = off (default 5)")(
      "max-line", po::value<std::string>()->value_name("BYTES"),
      "largest request line accepted (default 64M)")("config",
                                                     po::value<std::string>()->value_name("FILE"),
                                                     "old-core config file (server/discover body)")(
      "tools-list", po::value<std::string>()->value_name("FILE"),
      "old-core tools file ({\"tools\":[...]})")("log-file",
                                                 po::value<std::string>()->value_name("FILE"),
                                                 "diagnostic log file (default: stderr)")(
      "log-level", po::value<std::string>()->value_name("LEVEL"),
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
  if (vm.count("timeout")) {
    auto v = parse_seconds(vm["timeout"].as<std::string>());
    if (!v) return fail("--timeout needs a number of seconds");
    o.limits.timeout = *v;
  }
  if (vm.count("kill-grace")) {
    auto v = parse_seconds(vm["kill-grace"].as<std::string>());
    if (!v) return fail("--kill-grace needs a number of seconds");
    o.limits.kill_grace = *v;
  }
  if (vm.count("heartbeat")) {
    auto v = parse_seconds(vm["heartbeat"].as<std::string>());
    if (!v) return fail("--heartbeat needs a number of seconds");
    o.heartbeat = *v;
  }
  if (vm.count("cpu-limit")) {
    auto v = parse_seconds(vm["cpu-limit"].as<std::string>());
    if (!v || v->count() < 1000) return fail("--cpu-limit needs a whole number of seconds >= 1");
    o.limits.cpu_seconds = static_cast<std::uint64_t>(v->count() / 1000);
  }
  for (auto [name, target] :
       {std::pair<const char*, std::size_t*>{"max-output", &o.limits.max_stdout},
        {"max-stderr", &o.limits.max_stderr},
        {"max-line", &o.max_line}}) {
    if (!vm.count(name)) continue;
    auto v = parse_size(vm[name].as<std::string>());
    if (!v) return fail(std::string("--") + name + " needs a size such as 65536, 64k or 16M");
    *target = static_cast<std::size_t>(*v);
  }
  if (vm.count("memory-limit")) {
    auto v = parse_size(vm["memory-limit"].as<std::string>());
    if (!v || *v < (1 << 20)) return fail("--memory-limit needs a size of at least 1M");
    o.limits.memory_bytes = *v;
  }
  if (vm.count("max-concurrency")) {
    o.max_concurrency = vm["max-concurrency"].as<std::size_t>();
    if (o.max_concurrency == 0) return fail("--max-concurrency must be at least 1");
  }
  if (vm.count("warm")) o.warm = vm["warm"].as<std::size_t>();
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
