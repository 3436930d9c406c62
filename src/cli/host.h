#pragma once
// Wiring shared by every verb: the event loop, the runner, the catalog and the server
// (stdio; serve --http builds its own protocol core over the same catalog and executor).
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "cli/options.h"
#include "diagnostics/log.h"
#include "discovery/catalog.h"
#include "discovery/discoverer.h"
#include "execution/process_runner.h"
#include "execution/tool_executor.h"
#include "mcp/audit_log.h"
#include "mcp/server.h"
#include "reload/reloader.h"

namespace mcpsh::cli {

struct Host {
  boost::asio::io_context io;
  // Tools never reach the host's descriptors or memory (fault model: adr/0004).
  execution::ProcessRunner runner{io, {.hide_host_from_tools = true}};
  discovery::Catalog catalog;
  // What discovery's probes found, which a reload builds on (serve only).
  std::shared_ptr<const discovery::ProbeResults> probes;
  // What the start-up build parsed and compiled, for a reload to reuse (serve only).
  std::shared_ptr<discovery::CatalogMemo> catalog_memo;
  std::shared_ptr<mcp::OfferingMemo> offering_memo;
  std::unique_ptr<execution::ToolExecutor> executor;  // before server: it must outlive it
  std::unique_ptr<mcp::Server> server;
  std::string bash;
};

// How the command line's scripts are discovered (at start and at every reload).
discovery::DiscoveryOptions discovery_options(const Options& options, const std::string& bash);

// Watches the scripts and reloads them into `core` (serve without --no-watch; serve --http
// always has one, for SIGHUP, watching or not); null otherwise. It must be destroyed before
// the core.
std::unique_ptr<reload::Reloader> start_reloading(Host& host, const Options& options,
                                                  mcp::ProtocolCore& core, diagnostics::Log& log);

// Finds bash, discovers the tools and builds the executor: what every transport needs.
// Returns an error text when bash is missing.
std::optional<std::string> prepare_tools(Host& host, const Options& options, diagnostics::Log& log);
// The discovery errors that keep the host from starting, or nullopt.
std::optional<std::string> fatal_problems(const Host& host);

// prepare_tools, then a stdio server that sends through `send`.
// Returns an error text for the user when the host cannot start.
std::optional<std::string> prepare(Host& host, const Options& options, diagnostics::Log& log,
                                   mcp::Server::Send send, mcp::Server::Audit audit = {});

// The diagnostic log and the audit log the options name (serve, over stdio or HTTP).
struct Logs {
  std::unique_ptr<diagnostics::Log> log;
  std::unique_ptr<mcp::AuditLog> audit;  // null without --audit-log
};
// nullopt, after telling the user on stderr, when one of them cannot be opened.
std::optional<Logs> open_logs(const Options& options);

// The protocol core's settings from the command line, for stdio and HTTP alike; with `host`,
// also the memo its first Offering fills for reloads.
mcp::CoreOptions core_options(const Options& options, const Host* host = nullptr);

// How long tools get to clean up when the host itself is told to stop (or --kill-grace,
// when shorter), and how long the last responses then get: a client that stops us expects
// us gone promptly.
inline constexpr auto kShutdownGrace = std::chrono::milliseconds(1000);

// "SIGTERM" for SIGTERM, and so on for the signals that stop the host.
std::string signal_name(int sig);

// "3 tool(s), 1 resource(s), 2 prompt(s)": what the scripts offer, for logs and check.
std::string offer_summary(const discovery::Catalog& catalog);

// Every problem found by discovery and by the server (schemas), in order.
std::vector<discovery::Problem> all_problems(const Host& host);

}  // namespace mcpsh::cli
