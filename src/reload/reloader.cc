#include "reload/reloader.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "diagnostics/log.h"

namespace mcpsh::reload {

namespace asio = boost::asio;

namespace {

// Added to the nice value of the thread that builds the next catalog.
constexpr int kBuildNiceness = 10;

// A reload that could not start its thread is tried again after this.
constexpr std::chrono::milliseconds kRetry{1000};

// Why a new catalog is worse than the one served: a script that no longer loads, or a
// catalog that could not start the host.
std::string regression(const discovery::Catalog& next, const discovery::Catalog& last) {
  if (next.fatal) {
    for (const auto& p : next.problems)
      if (p.severity == discovery::Problem::Severity::kError) return p.what;
    return "the scripts define the same name twice";
  }
  // A script or folder given on the command line that is gone (mid-checkout, say) is a
  // moment to wait out, not a catalog to serve.
  auto missing = [](const discovery::Catalog& c, const std::string& where) {
    for (const auto& p : c.problems)
      if (p.what == "no such script or directory" && p.where == where) return true;
    return false;
  };
  for (const auto& p : next.problems)
    if (p.what == "no such script or directory" && !missing(last, p.where))
      return p.where + ": " + p.what;
  for (const auto& script : next.failed_scripts)
    if (std::find(last.failed_scripts.begin(), last.failed_scripts.end(), script) ==
        last.failed_scripts.end()) {
      for (const auto& p : next.problems)
        if (p.where == script) return p.where + ": " + p.what;
      return script + " no longer loads";
    }
  return {};
}

// Background work: the calling thread yields the CPU to the loop (Linux keeps a nice value
// per thread). Best effort: at worst it competes as an equal.
void background() {
  const auto self = static_cast<id_t>(::gettid());
  errno = 0;
  const int current = ::getpriority(PRIO_PROCESS, self);
  if (errno == 0) ::setpriority(PRIO_PROCESS, self, std::min(current + kBuildNiceness, 19));
}

}  // namespace

struct Reloader::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::io_context& io, execution::Runner& runner, mcp::ProtocolCore& core,
       ReloadOptions options, diagnostics::Log& log)
      : io(io),
        runner(runner),
        core(core),
        options(std::move(options)),
        log(log),
        timer(io),
        watch(
            io, [this](const std::string& path) { changed(path); },
            [&log](const std::string& what) { log.warning(what); }) {}

  void start(const discovery::Catalog& current) {
    last = current;
    rewatch();
  }

  void rewatch() {
    std::vector<std::string> files = last.sources, folders = last.directories;
    watchers.clear();
    for (const auto& r : last.resources)
      for (const auto& w : r.watch) {
        std::error_code ec;
        (std::filesystem::is_directory(w, ec) ? folders : files).push_back(w);
        if (!r.is_template) watchers[w].insert(r.uri);
      }
    sources.clear();
    sources.insert(last.sources.begin(), last.sources.end());
    sources.insert(last.directories.begin(), last.directories.end());
    if (options.watch) watch.watch(files, folders);
  }

  void changed(const std::string& path) {
    if (auto it = watchers.find(path); it != watchers.end())
      for (const auto& uri : it->second) {
        log.debug("resource " + uri + " changed (" + path + ")");
        core.resource_changed(uri);
      }
    if (!sources.count(path)) return;
    log.debug(path + " changed");
    schedule();
  }

  // A reload after the debounce (or `after`); during a reload, one more once it ends.
  void schedule(std::optional<std::chrono::milliseconds> after = std::nullopt) {
    if (running) {
      again = true;
      return;
    }
    timer.expires_after(after.value_or(options.debounce));
    timer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      if (auto self = weak.lock(); self && !ec) self->reload();
    });
  }

  // The probes run as children of the loop; what follows them (reading every script's
  // comments, compiling schemas and templates, rendering the lists) runs on a thread of
  // its own, so that no request waits for it; the swap itself is back on the loop.
  void reload() {
    running = true;
    began = Clock::now();
    discovery::probe_scripts(
        io, runner, options.discovery,
        [weak = weak_from_this()](std::shared_ptr<discovery::ProbeResults> probes) {
          if (auto self = weak.lock()) self->build(std::move(probes));
        });
  }

  void build(std::shared_ptr<discovery::ProbeResults> probes) {
    probed = Clock::now();
    join_worker();
    // The thread touches only its own copies, and the loop through post().
    try {
      worker = std::thread([&io = io, weak = weak_from_this(), probes = std::move(probes),
                            discovery_options = options.discovery, dirs = options.resource_dirs,
                            page_size = options.page_size, live = options.live]() mutable {
        background();
        auto next = std::make_shared<discovery::Catalog>(
            discovery::catalog_from_probes(*probes, discovery_options));
        auto offering = std::make_shared<const mcp::Offering>(*next, dirs, live, page_size);
        probes.reset();  // freed here, not by whoever joins the thread
        asio::post(io, [weak, next, offering] {
          if (auto self = weak.lock()) self->built(std::move(*next), offering);
        });
      });
    } catch (const std::system_error& e) {
      // No thread to be had (the user's process limit, say): the catalog served stays, and
      // the reload is tried again later; never an exception out of the loop.
      running = false;
      log.warning(std::string("reload: could not start a thread: ") + e.what() +
                  "; trying again in " + std::to_string(kRetry.count()) + " ms");
      again = false;
      schedule(kRetry);
    }
  }

  // The swap is all the loop does: the old catalog and Offering are freed on a thread of
  // their own (for 100 scripts that took 1.5-2.5 ms of the loop). A call still running
  // holds its own reference to the old Offering and frees it when it ends.
  void built(discovery::Catalog next, std::shared_ptr<const mcp::Offering> offering) {
    const Clock::time_point arrived = Clock::now();
    running = false;
    ++count;
    if (std::string why = regression(next, last); !why.empty()) {
      log.warning("reload: keeping the catalog served so far: " + why);
      retire(std::move(offering), std::move(next));
    } else {
      for (const auto& p : offering->problems) log.warning("reload: " + p.where + ": " + p.what);
      std::shared_ptr<const mcp::Offering> old = core.replace_offering(std::move(offering));
      discovery::Catalog previous = std::exchange(last, std::move(next));
      rewatch();
      retire(std::move(old), std::move(previous));
      log.info("reload: probes " + in_ms(probed - began) + ", building " + in_ms(arrived - probed) +
               " off the loop, swap " + in_ms(Clock::now() - arrived) + " on the loop");
    }
    if (again) {
      again = false;
      schedule();
    }
  }

  void retire(std::shared_ptr<const mcp::Offering> offering, discovery::Catalog catalog) {
    join_worker();
    try {
      worker =
          std::thread([offering = std::move(offering), catalog = std::move(catalog)]() mutable {
            background();
            offering.reset();
            catalog = {};
          });
    } catch (const std::system_error&) {
      // No thread to be had: what it was given is freed here, on the loop, as it unwinds.
    }
  }

  // By the time the worker is joined it has done its work (a build posted its result; a
  // retirement takes milliseconds, a reload's probes seconds), so this waits little if at
  // all.
  void join_worker() {
    if (worker.joinable()) worker.join();
  }

  ~Impl() { join_worker(); }

  using Clock = std::chrono::steady_clock;

  static std::string in_ms(Clock::duration d) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3f ms",
                  std::chrono::duration<double, std::milli>(d).count());
    return text;
  }

  asio::io_context& io;
  execution::Runner& runner;
  mcp::ProtocolCore& core;
  ReloadOptions options;
  diagnostics::Log& log;
  asio::steady_timer timer;
  FileWatch watch;
  discovery::Catalog last;
  std::set<std::string> sources;
  std::map<std::string, std::set<std::string>> watchers;  // @watch path -> URIs
  bool running = false, again = false;
  std::size_t count = 0;
  Clock::time_point began, probed;  // of the reload running
  // Builds the next catalog and Offering, or frees the ones replaced; joined before it is
  // given more work and on destruction (it posts to the loop only through a weak pointer).
  std::thread worker;
};

Reloader::Reloader(asio::io_context& io, execution::Runner& runner, mcp::ProtocolCore& core,
                   ReloadOptions options, diagnostics::Log& log)
    : impl_(std::make_shared<Impl>(io, runner, core, std::move(options), log)) {}

Reloader::~Reloader() = default;

void Reloader::start(const discovery::Catalog& current) { impl_->start(current); }

void Reloader::reload_now() { impl_->schedule(); }

std::size_t Reloader::reloads() const { return impl_->count; }

}  // namespace mcpsh::reload
