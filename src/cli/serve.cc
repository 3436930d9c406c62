// The stdio server: stdin lines in, stdout lines out, until the client is done.
//
// Lifecycle:
//  - Serving. Reading stdin pauses while the client is not taking our output (the writer
//    is over its high-water mark) or --max-queue calls wait for a slot; it resumes when
//    they drain. The client's writes then block: nothing is dropped, memory stays bounded.
//  - Stopping. stdin EOF -> stop reading, let calls in flight finish (bounded by their
//    timeouts), answer them. SIGTERM, SIGINT, SIGHUP, SIGQUIT or stdout closed by the
//    client -> terminate every tool group (SIGTERM, SIGKILL after a short grace; a second
//    signal: SIGKILL at once), send nothing more.
//  - Flushing. Responses already queued are written, with a deadline: after a signal, the
//    shutdown grace; after EOF, as long as the client keeps taking them (given up once it
//    took no whole line for kFlushStall). A signal during the flush ends it at once. Then
//    exit 0.
// Either way, when serve returns the runner's destructor kills and reaps every process
// still left (adr/0004).
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
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
// After end of input, how long the client may take no whole line of the last responses
// before they are given up.
constexpr auto kFlushStall = std::chrono::seconds(10);

}  // namespace

int serve(const Options& options) {
  auto logs = open_logs(options);
  if (!logs) return 2;
  auto& log = logs->log;
  auto& audit = logs->audit;

  Host host;
  // Set once serving; reset when input ends or the host stops: no reload after that.
  std::unique_ptr<reload::Reloader> reloader;
  // A reader thread (stdin other than a pipe) may outlive this function, blocked in
  // read(2); the gate makes its late posts harmless.
  struct Gate {
    std::mutex mutex;
    bool open = true;
  };
  auto gate = std::make_shared<Gate>();
  auto post = [gate, &host](std::function<void()> f) {
    std::lock_guard lock(gate->mutex);
    if (gate->open) asio::post(host.io, std::move(f));
  };
  bool stopping = false, input_done = false, flushing = false, flush_interrupted = false;

  // Stops the loop once no call is left to answer. Runs that belong to no call (bash
  // processes started ahead, now retiring) do not keep the host alive: the runner's
  // destructor kills and reaps whatever is left, escapees included. A call of it still
  // queued when the loop stopped (the idle hook posts one) must not end the flush of the
  // last responses that follows: that phase has deadlines of its own.
  auto maybe_exit = [&] {
    if (flushing) return;
    if ((input_done || stopping) && host.server && host.server->in_flight() == 0) host.io.stop();
  };
  auto shut_down = [&](const std::string& why) {
    if (stopping) return;
    stopping = true;
    log->info("shutting down: " + why);
    reloader.reset();
    if (host.server) host.server->end_subscriptions();
    if (host.server) host.server->stop_all(std::min(options.limits.kill_grace, kShutdownGrace));
    maybe_exit();
  };

  // Backpressure: set once both ends exist; runs on the loop's thread.
  std::function<void()> update_flow = [] {};
  transport::LineWriter writer(
      STDOUT_FILENO, post,
      transport::WriterEvents{[&] { shut_down("the client closed stdout"); },
                              [&] { update_flow(); }});
  transport::LineReader reader(
      STDIN_FILENO, options.max_line, post,
      transport::LineEvents{[&](std::string line) {
                              if (!stopping && !input_done) host.server->on_line(std::move(line));
                              update_flow();
                            },
                            [&](std::size_t size) {
                              if (!stopping && !input_done) host.server->on_oversized_line(size);
                              update_flow();
                            },
                            [&] {
                              input_done = true;
                              reloader.reset();
                              // Graceful closure: open listen streams get their result.
                              host.server->end_subscriptions();
                              host.server->input_closed();
                              log->info("stdin closed; finishing " +
                                        std::to_string(host.server->in_flight()) + " call(s)");
                              maybe_exit();
                            }});

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
  log->info("serving " + offer_summary(host.catalog) + " on stdio");
  host.server->start_warm();
  reloader = start_reloading(host, options, host.server->core(), *log);

  bool paused = false;
  update_flow = [&] {
    const bool writer_full = writer.over_high_water();
    const bool queue_full = host.server->queued() >= options.max_queue;
    if ((writer_full || queue_full) == paused) return;
    paused = !paused;
    reader.set_paused(paused);
    log->debug(paused ? std::string("stdin paused: ") + (writer_full
                                                             ? "the client is not reading stdout"
                                                             : "the call queue is full")
                      : std::string("stdin resumed"));
  };
  host.server->set_on_dequeue(update_flow);
  host.server->set_on_idle([&] { asio::post(host.io, maybe_exit); });

  asio::signal_set signals(host.io, SIGTERM, SIGINT, SIGHUP);
  signals.add(SIGQUIT);
  // The first signal shuts down gracefully; another one kills every tool at once, or ends
  // the flush of the last responses.
  std::function<void(const boost::system::error_code&, int)> on_signal =
      [&](const boost::system::error_code& ec, int sig) {
        if (ec) return;
        const std::string name = signal_name(sig);
        if (flushing) {
          log->info("received " + name + " while writing the last responses: exiting now");
          flush_interrupted = true;
          host.io.stop();
        } else if (!stopping) {
          shut_down("received " + name);
        } else {
          log->info("received " + name + " again: killing every tool now");
          host.runner.terminate_all(std::chrono::milliseconds(0));
        }
        signals.async_wait(on_signal);
      };
  signals.async_wait(on_signal);

  log->debug(reader.start(host.io) ? "stdin: read on the loop (a pipe)"
                                   : "stdin: read on a thread of its own");
  auto work = asio::make_work_guard(host.io);
  host.io.run();

  // The last responses: the loop keeps running (signals, processes being reaped) until
  // the writer is done, the deadline passes or a signal comes.
  flushing = true;
  if (!writer.closed() && writer.queued_bytes() > 0) {
    host.io.restart();
    bool flushed = false;
    writer.when_flushed([&] {
      flushed = true;
      host.io.stop();
    });
    asio::steady_timer deadline(host.io);
    // After a signal: a fixed grace. After end of input: as long as the client keeps taking
    // whole lines, given up once it took none for kFlushStall.
    std::size_t last_queued = writer.queued_bytes();
    std::function<void(const boost::system::error_code&)> on_deadline =
        [&](const boost::system::error_code& ec) {
          if (ec) return;
          const std::size_t queued = writer.queued_bytes();
          if (stopping || queued == last_queued) {
            host.io.stop();
            return;
          }
          last_queued = queued;
          deadline.expires_after(kFlushStall);
          deadline.async_wait(on_deadline);
        };
    if (stopping)
      deadline.expires_after(kShutdownGrace);
    else
      deadline.expires_after(kFlushStall);
    deadline.async_wait(on_deadline);
    host.io.run();
    // A client that stopped reading while it kept us running deserves a warning; one that
    // told us to stop (a signal, as SDKs send when they close) has what it asked for.
    if (!flushed && !writer.closed()) {
      const std::string undelivered =
          std::to_string(writer.queued_bytes()) + " byte(s) of responses not delivered";
      if (stopping || flush_interrupted)
        log->info("stopped by a signal: " + undelivered);
      else
        log->warning("the client is not reading stdout: " + undelivered);
    }
  }
  writer.abandon();
  std::lock_guard lock(gate->mutex);
  gate->open = false;
  return 0;
}

}  // namespace mcpsh::cli
