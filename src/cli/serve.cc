// The stdio server: stdin lines in, stdout lines out, until the client is done.
//
// Lifecycle: stdin EOF -> stop reading, let calls in flight finish (bounded by their
// timeouts), write their responses, exit 0. SIGTERM/SIGINT or stdout closed by the
// client -> terminate every tool group (SIGTERM, SIGKILL after a short grace; a second
// signal: SIGKILL at once), send nothing more, exit 0. Either way, when the loop ends the
// runner's destructor kills and reaps every process still left (adr/0004).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <iostream>
#include <mutex>

#include "cli/host.h"
#include "cli/verbs.h"
#include "mcp/audit_log.h"
#include "transport/line_reader.h"
#include "transport/line_writer.h"

namespace mcpsh::cli {

namespace asio = boost::asio;

namespace {
// How long tools get to clean up when the host itself is told to stop (or --kill-grace,
// when shorter): a client that stops us expects us gone promptly.
constexpr auto kShutdownGrace = std::chrono::milliseconds(1000);
}  // namespace

int serve(const Options& options) {
  std::unique_ptr<diagnostics::Log> log;
  std::unique_ptr<mcp::AuditLog> audit;
  try {
    log = std::make_unique<diagnostics::Log>(options.log_file, options.log_level);
    if (!options.audit_log.empty()) audit = std::make_unique<mcp::AuditLog>(options.audit_log);
  } catch (const std::exception& e) {
    std::cerr << "mcp-shell-host: " << e.what() << "\n";
    return 2;
  }

  Host host;
  // The reader thread may outlive this function (blocked in read(2)); the gate makes its
  // late posts harmless.
  struct Gate {
    std::mutex mutex;
    bool open = true;
  };
  auto gate = std::make_shared<Gate>();
  auto post = [gate, &host](std::function<void()> f) {
    std::lock_guard lock(gate->mutex);
    if (gate->open) asio::post(host.io, std::move(f));
  };
  bool stopping = false, input_done = false;

  // Stops the loop once no call is left to answer. Runs that belong to no call (bash
  // processes started ahead, now retiring) do not keep the host alive: the runner's
  // destructor kills and reaps whatever is left, escapees included.
  auto maybe_exit = [&] {
    if ((input_done || stopping) && host.server && host.server->in_flight() == 0) host.io.stop();
  };
  auto shut_down = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    log->info("shutting down: " + why);
    if (host.server) host.server->stop_all(std::min(options.limits.kill_grace, kShutdownGrace));
    maybe_exit();
  };

  transport::LineWriter writer(STDOUT_FILENO, post, [&] { shut_down("the client closed stdout"); });

  auto error = prepare(
      host, options, *log, [&writer](std::string line) { writer.write(std::move(line)); },
      audit ? mcp::Server::Audit([&](const mcp::AuditRecord& r) { audit->write(r); })
            : mcp::Server::Audit());
  for (const auto& p : all_problems(host))
    log->write(p.severity == discovery::Problem::Severity::kError ? diagnostics::Level::kError
                                                                  : diagnostics::Level::kWarning,
               p.where + ": " + p.what);
  if (error) {
    log->error("cannot start: " + *error);
    return 1;
  }
  log->info("serving " + std::to_string(host.catalog.tools.size()) + " tool(s) on stdio");
  host.server->start_warm();

  host.server->set_on_idle([&] { asio::post(host.io, maybe_exit); });
  asio::signal_set signals(host.io, SIGTERM, SIGINT);
  // The first signal shuts down gracefully; another one kills every tool at once.
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        const std::string name = sig == SIGTERM ? "SIGTERM" : "SIGINT";
        if (!stopping) {
          shut_down("received " + name);
        } else {
          log->info("received " + name + " again: killing every tool now");
          host.runner.terminate_all(std::chrono::milliseconds(0));
        }
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);

  transport::LineReader reader(
      STDIN_FILENO, options.max_line, post,
      transport::LineEvents{[&](std::string line) {
                              if (!stopping && !input_done) host.server->on_line(line);
                            },
                            [&](std::size_t size) {
                              if (!stopping && !input_done) host.server->on_oversized_line(size);
                            },
                            [&] {
                              input_done = true;
                              host.server->input_closed();
                              log->info("stdin closed; finishing " +
                                        std::to_string(host.server->in_flight()) + " call(s)");
                              maybe_exit();
                            }});
  reader.start();

  auto work = asio::make_work_guard(host.io);
  host.io.run();
  writer.flush();
  std::lock_guard lock(gate->mutex);
  gate->open = false;
  return 0;
}

}  // namespace mcpsh::cli
