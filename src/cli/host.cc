#include "cli/host.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

#include "discovery/discoverer.h"

namespace mcpsh::cli {

namespace {
// bash from PATH, looked up once: tool calls exec it by absolute path.
std::optional<std::string> find_bash() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/bash";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}
}  // namespace

discovery::DiscoveryOptions discovery_options(const Options& options, const std::string& bash) {
  discovery::DiscoveryOptions d;
  d.paths = options.paths;
  d.tools_list_file = options.tools_list_file;
  d.config_file = options.config_file;
  d.bash = bash;
  d.sandbox = options.sandbox;
  d.env = options.env;
  return d;
}

std::unique_ptr<reload::Reloader> start_reloading(Host& host, const Options& options,
                                                  mcp::ProtocolCore& core, diagnostics::Log& log) {
  // Over HTTP the host is a service, which reloads on SIGHUP even when it does not watch.
  if (options.verb != Verb::kServe || (!options.watch && !options.http)) return nullptr;
  reload::ReloadOptions r;
  r.watch = options.watch;
  r.live = core_options(options).live;
  r.discovery = discovery_options(options, host.bash);
  // A reload is background work: its probes (each a bash, mostly busy on one CPU) leave a
  // CPU free for the loop and the clients. On 2 CPUs one probe at a time cut the slowest
  // requests during a reload by a third (scripts/bench --only reload, ADR 0019).
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  r.discovery.max_probes = std::clamp(cpus - 1, 1u, 4u);
  r.discovery.probe_niceness = 10;
  // And they run in the idle class, which a request's thread preempts the moment it wakes
  // (at nice +10 it may wait out the probe's slice: ADR 0023). A probe gets a second of it;
  // past that the machine is busy, and the round's probes go back to nice +10.
  r.discovery.probe_idle_for = std::chrono::seconds(1);
  r.resource_dirs = options.resource_dirs;
  r.page_size = options.page_size;
  r.catalog_memo = host.catalog_memo;
  r.offering_memo = host.offering_memo;
  auto reloader = std::make_unique<reload::Reloader>(host.io, host.runner, core, std::move(r), log);
  reloader->start(host.catalog, host.probes);
  return reloader;
}

std::optional<std::string> prepare_tools(Host& host, const Options& options,
                                         diagnostics::Log& log) {
  auto bash = find_bash();
  if (!bash) return "bash was not found in PATH";
  host.bash = *bash;
  const bool serve = options.verb == Verb::kServe;
  if (serve) {
    host.catalog_memo = std::make_shared<discovery::CatalogMemo>();
    host.offering_memo = std::make_shared<mcp::OfferingMemo>();
  }
  host.catalog = discovery::discover(host.io, host.runner, discovery_options(options, host.bash),
                                     serve ? &host.probes : nullptr, host.catalog_memo.get());

  execution::ExecutorOptions e;
  e.bash = host.bash;
  e.warm_per_script = options.verb == Verb::kServe ? options.warm : 0;
  e.warm_limits = options.limits;
  e.on_warning = [&log](std::string w) { log.warning(w); };
  host.executor = std::make_unique<execution::ToolExecutor>(host.io, host.runner, std::move(e));
  return std::nullopt;
}

std::optional<std::string> fatal_problems(const Host& host) {
  if (!host.catalog.fatal) return std::nullopt;
  std::string text;
  for (const auto& p : host.catalog.problems)
    if (p.severity == discovery::Problem::Severity::kError)
      text += (text.empty() ? "" : "; ") + p.what;
  return text;
}

std::optional<std::string> prepare(Host& host, const Options& options, diagnostics::Log& log,
                                   mcp::Server::Send send, mcp::Server::Audit audit) {
  if (auto error = prepare_tools(host, options, log)) return error;
  mcp::ServerOptions s = core_options(options, &host);
  host.server = std::make_unique<mcp::Server>(host.io, host.catalog, *host.executor, s,
                                              std::move(send), log, std::move(audit));
  return fatal_problems(host);
}

std::vector<discovery::Problem> all_problems(const Host& host) {
  auto problems = host.catalog.problems;
  if (host.server)
    problems.insert(problems.end(), host.server->problems().begin(), host.server->problems().end());
  return problems;
}

std::string offer_summary(const discovery::Catalog& catalog) {
  std::string out = std::to_string(catalog.tools.size()) + " tool(s)";
  if (!catalog.resources.empty())
    out += ", " + std::to_string(catalog.resources.size()) + " resource(s)";
  if (!catalog.prompts.empty()) out += ", " + std::to_string(catalog.prompts.size()) + " prompt(s)";
  return out;
}

mcp::CoreOptions core_options(const Options& options, const Host* host) {
  mcp::CoreOptions o;
  o.limits = options.limits;
  o.max_concurrency = options.max_concurrency;
  o.heartbeat = options.heartbeat;
  o.resource_dirs = options.resource_dirs;
  o.live = options.watch && options.verb == Verb::kServe;
  o.page_size = options.page_size;
  o.sealer = options.state_sealer;
  o.state_ttl = options.state_ttl;
  o.confirm_destructive = options.confirm_destructive;
  o.task_after = options.task_after;
  o.task_ttl = options.task_ttl;
  o.max_tasks = options.max_tasks;
  if (host) o.offering_memo = host->offering_memo;
  return o;
}

std::optional<Logs> open_logs(const Options& options) {
  Logs logs;
  try {
    logs.log = std::make_unique<diagnostics::Log>(options.log_file, options.log_level);
    if (!options.audit_log.empty()) logs.audit = std::make_unique<mcp::AuditLog>(options.audit_log);
  } catch (const std::exception& e) {
    std::cerr << "mcp-shell-host: " << e.what() << "\n";
    return std::nullopt;
  }
  return logs;
}

std::string signal_name(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
  }
  return "signal " + std::to_string(sig);
}

}  // namespace mcpsh::cli
