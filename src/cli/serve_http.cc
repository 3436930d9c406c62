// The HTTP server (serve --http): the same protocol core as stdio, behind the Streamable
// HTTP transport, on the same event loop.
//
// Lifecycle:
//  - A socket passed by a service manager (LISTEN_FDS) is served in place of --listen, and
//    the manager is told READY=1 once the host listens (NOTIFY_SOCKET), STOPPING=1 when it
//    stops.
//  - Serving until SIGTERM, SIGINT or SIGQUIT. SIGHUP discovers the scripts again (the
//    reload a change would start; calls in flight are not touched) when the host runs as
//    a daemon; with a controlling terminal it is the terminal's hangup and stops the host
//    like SIGTERM; ignored at start (nohup), it stays ignored.
//  - Stopping (the first signal): accept no more connections, close the idle ones; calls
//    in flight get --kill-grace to finish and are answered (their connections then
//    close). What is still running after that is stopped (SIGTERM, SIGKILL after at most
//    a second), unanswered; the last responses get a second to be written. Then exit 0.
//  - A second signal: every tool is killed at once and the host exits.
#include <signal.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/host.h"
#include "cli/http_settings.h"
#include "cli/verbs.h"
#include "http/http_server.h"
#include "mcp/asio_wakeups.h"
#include "mcp/audit_log.h"
#include "mcp/metrics.h"
#include "mcp/protocol_core.h"
#include "service/service_manager.h"

namespace mcpsh::cli {

namespace asio = boost::asio;

namespace {
const char* environment(const char* name) { return std::getenv(name); }
}  // namespace

int serve_http(const Options& options) {
  // First, before any probe or tool could inherit what the service manager passed.
  const service::ServiceManager manager = service::take_from_environment();
  const service::Hangup hangup = service::hangup_meaning();
  auto logs = open_logs(options);
  if (!logs) return 2;
  auto& log = logs->log;
  auto& audit = logs->audit;
  auto settings = http_settings(options, environment);
  if (!settings.options) {
    std::cerr << "mcp-shell-host: " << settings.error << "\n";
    return 2;
  }

  if (!manager.error.empty()) {
    log->error("cannot start: " + manager.error);
    return 1;
  }
  if (manager.sockets.size() > 1) {
    log->error("cannot start: the service manager passed " +
               std::to_string(manager.sockets.size()) + " sockets; the host serves one");
    return 1;
  }

  Host host;
  if (auto error = prepare_tools(host, options, *log)) {
    log->error("cannot start: " + *error);
    return 1;
  }
  // Every finished request feeds /metrics, and the audit log when there is one.
  mcp::Metrics metrics;
  mcp::ProtocolCore::Audit record = [&audit, &metrics](const mcp::AuditRecord& r) {
    metrics.record(r);
    if (audit) audit->write(r);
  };
  mcp::AsioWakeups wakeups(host.io);
  mcp::ProtocolCore core(host.catalog, *host.executor, core_options(options, &host), wakeups, *log,
                         record);
  auto problems = host.catalog.problems;
  problems.insert(problems.end(), core.problems().begin(), core.problems().end());
  for (const auto& p : problems)
    log->write(p.severity == discovery::Problem::Severity::kError ? diagnostics::Level::kError
                                                                  : diagnostics::Level::kWarning,
               p.where + ": " + p.what);
  if (auto fatal = fatal_problems(host)) {
    log->error("cannot start: " + *fatal);
    return 1;
  }
  core.enable_warm();
  auto reloader = start_reloading(host, options, core, *log);

  // Declared after the core: closing its connections on destruction tells the core.
  http::HttpServer server(host.io, core, *settings.options, *log, record);
  auto render_metrics = [&] {
    const auto warm = host.executor->warm_counts();
    return metrics.render({.in_flight = core.calls().in_flight(),
                           .queued = core.calls().queued(),
                           .processes = host.runner.running(),
                           .warm_hits = warm.hits,
                           .warm_misses = warm.misses});
  };
  // --metrics-listen: /metrics (with the probes) on an address of its own, and only there.
  // It serves until the host exits; while the host drains its /readyz says so.
  std::unique_ptr<http::HttpServer> operations;
  if (options.metrics_port) {
    http::HttpOptions o = *settings.options;
    o.host = options.metrics_host.value_or(o.host);
    o.port = *options.metrics_port;
    o.path = "/metrics";
    o.probes_only = true;
    operations = std::make_unique<http::HttpServer>(host.io, core, std::move(o), *log);
    operations->set_metrics(render_metrics);
    if (auto error = operations->listen()) {
      log->error("cannot start: " + *error);
      return 1;
    }
  } else {
    server.set_metrics(render_metrics);
  }
  const bool activated = !manager.sockets.empty();
  if (auto error = activated ? server.adopt(manager.sockets.front()) : server.listen()) {
    log->error("cannot start: " + *error);
    return 1;
  }
  // Before the manager hears READY=1 (and may send SIGHUP to reload): signals that come
  // before the handler below is waiting are kept for it.
  asio::signal_set signals(host.io, SIGTERM, SIGINT, SIGQUIT);
  if (hangup != service::Hangup::kIgnored) signals.add(SIGHUP);
  // Inherited blocked, they would never arrive (Asio installs handlers, it does not unblock).
  sigset_t handled;
  sigemptyset(&handled);
  for (int sig : {SIGTERM, SIGINT, SIGQUIT, SIGHUP})
    if (sig != SIGHUP || hangup != service::Hangup::kIgnored) sigaddset(&handled, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &handled, nullptr);
  if (operations) log->info("metrics and probes on " + operations->url());
  if (hangup == service::Hangup::kIgnored)
    log->info("SIGHUP was ignored when the host started (nohup): it stays ignored");
  const std::string serving =
      "serving " + offer_summary(host.catalog) + "; listening on " + server.url();
  log->info(serving + (activated ? " (the service manager's socket)" : ""));
  manager.notify("READY=1\nSTATUS=" + serving);

  bool stopping = false;
  const auto grace = options.limits.kill_grace;
  asio::steady_timer grace_timer(host.io), final_timer(host.io);
  // Once no call is left, connections still waiting for one will never get an answer
  // (their calls were stopped); when every connection is closed, we are done.
  auto maybe_exit = [&] {
    if (!stopping || core.calls().in_flight() > 0) return;
    server.close_waiting();
    if (server.connections() == 0) host.io.stop();
  };
  core.calls().set_on_idle([&] { asio::post(host.io, maybe_exit); });
  server.set_on_closed([&] { asio::post(host.io, maybe_exit); });

  auto shut_down = [&](const std::string& why) {
    stopping = true;
    manager.notify("STOPPING=1\nSTATUS=draining");
    log->info("shutting down: " + why + "; " + std::to_string(core.calls().in_flight()) +
              " call(s) in flight");
    server.stop_accepting();
    if (operations) operations->mark_stopping();
    reloader.reset();  // no reload while stopping
    core.end_subscriptions();
    core.input_closed();
    grace_timer.expires_after(grace);
    grace_timer.async_wait([&](const boost::system::error_code& ec) {
      if (ec) return;
      if (core.calls().in_flight() > 0)
        log->info("grace over: stopping " + std::to_string(core.calls().in_flight()) + " call(s)");
      core.calls().stop_all(std::min(grace, kShutdownGrace));
      server.close_unanswered();
      final_timer.expires_after(2 * kShutdownGrace);
      final_timer.async_wait([&](const boost::system::error_code& e) {
        if (e) return;
        server.close_all();
        host.io.stop();
      });
    });
    maybe_exit();
  };

  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        const std::string name = signal_name(sig);
        if (sig == SIGHUP && (hangup == service::Hangup::kReload || stopping)) {
          // Once stopping, a terminal's further hangups (bash resends them to its jobs) add
          // nothing; only SIGTERM, SIGINT or SIGQUIT again kill every tool at once.
          if (reloader && !stopping) {
            log->info("received SIGHUP: discovering the scripts again");
            reloader->reload_now();
          }
        } else if (!stopping) {
          shut_down("received " + name);
        } else {
          log->info("received " + name + " again: killing every tool now");
          host.runner.terminate_all(std::chrono::milliseconds(0));
          core.calls().stop_all(std::chrono::milliseconds(0));
          server.close_all();
          host.io.stop();
          return;
        }
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);

  server.start();
  if (operations) operations->start();
  auto work = asio::make_work_guard(host.io);
  host.io.run();
  return 0;
}

}  // namespace mcpsh::cli
