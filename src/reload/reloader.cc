#include "reload/reloader.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "diagnostics/log.h"
#include "execution/thread_scheduling.h"

namespace mcpsh::reload {

namespace asio = boost::asio;

namespace {

// Added to the nice value of the background thread (it lists the scripts, builds the next
// catalog and frees the last one).
constexpr int kBuildNiceness = 10;
// How long the background thread keeps its CPU before a thread waiting there (a request's)
// runs, on a machine with a CPU to spare (adr/0025); a build takes about 3% more CPU.
constexpr std::chrono::microseconds kBuildSlice{200};

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
// per thread). Best effort: at worst it competes as an equal. Named as top -H and perf show it.
void become_background() {
  ::pthread_setname_np(::pthread_self(), "mcpsh-reload");
  execution::use_default_slices();  // not the loop's short ones (adr/0024)
  const auto self = static_cast<id_t>(::gettid());
  errno = 0;
  const int current = ::getpriority(PRIO_PROCESS, self);
  if (errno == 0) ::setpriority(PRIO_PROCESS, self, std::min(current + kBuildNiceness, 19));
}

// What a build reused of the one before it (adr/0024), for the log line.
std::string reused(const discovery::CatalogMemo& blocks, const mcp::OfferingMemo& offering) {
  const auto& tools = offering.tools;
  return "; reused " + std::to_string(blocks.reused()) + " of " +
         std::to_string(blocks.reused() + blocks.parsed()) + " comment blocks and " +
         std::to_string(tools.reused()) + " of " + std::to_string(tools.reused() + tools.made()) +
         " tool definitions";
}

// The end of the log line of a reload whose probes left the idle class (a busy machine).
std::string started_again(const discovery::ProbeCounts& round) {
  if (round.started_again == 0) return "";
  return "; " + std::to_string(round.started_again) +
         (round.started_again == 1 ? " probe" : " probes") +
         " did not end in the idle class and started again at nice +10";
}

}  // namespace

struct Reloader::Impl : std::enable_shared_from_this<Impl> {
  Impl(asio::io_context& io, execution::Runner& runner, mcp::ProtocolCore& core,
       ReloadOptions options, diagnostics::Log& log)
      : io(io),
        runner(runner),
        core(core),
        options(with_memos(std::move(options))),
        log(log),
        timer(io),
        watch(
            io, [this](const std::string& path) { changed(path); },
            [&log](const std::string& what) { log.warning(what); }) {}

  // The memos the builds use (ReloadOptions): empty ones when none was given. Used by one
  // build job at a time, on the background thread (or on the loop, when there is none).
  static ReloadOptions with_memos(ReloadOptions o) {
    if (!o.catalog_memo) o.catalog_memo = std::make_shared<discovery::CatalogMemo>();
    if (!o.offering_memo) o.offering_memo = std::make_shared<mcp::OfferingMemo>();
    return o;
  }

  void start(const discovery::Catalog& current,
             std::shared_ptr<const discovery::ProbeResults> found) {
    last = current;
    probes = std::move(found);
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
    dirty.insert(path);
    schedule();
  }

  // SIGHUP: every script is probed again, changed or not (its definitions may depend on
  // what no watch sees: a file it sources for settings, the environment).
  void reload_all() {
    everything = true;
    schedule();
  }

  // A reload after the debounce; during a reload, one more once it ends.
  void schedule() {
    if (running) {
      again = true;
      return;
    }
    timer.expires_after(options.debounce);
    timer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      if (auto self = weak.lock(); self && !ec) self->reload();
    });
  }

  // Only the scripts that changed are probed again (a script of a folder edited: one probe,
  // not one per script of the folder); the others keep what the last round found. The loop
  // starts the probes and swaps the catalog in; listing the scripts and building the
  // catalog (reading every script's comments, compiling schemas and templates, rendering
  // the lists) happen in the background, so that no request waits for them.
  void reload() {
    running = true;
    began = Clock::now();
    std::vector<std::string> changes(dirty.begin(), dirty.end());
    dirty.clear();
    auto previous = std::exchange(everything, false) ? nullptr : probes;
    off_loop([&io = io, weak = weak_from_this(), discovery_options = options.discovery,
              previous = std::move(previous), changes = std::move(changes)] {
      auto plan = discovery::plan_probes(discovery_options, previous.get(), changes);
      asio::post(io, [weak, plan = std::move(plan)]() mutable {
        if (auto self = weak.lock()) self->start_probes(std::move(plan));
      });
    });
  }

  void start_probes(std::shared_ptr<discovery::ProbeResults> plan) {
    discovery::run_probes(
        io, runner, options.discovery, std::move(plan),
        [weak = weak_from_this()](std::shared_ptr<const discovery::ProbeResults> found) {
          if (auto self = weak.lock()) self->build(std::move(found));
        });
  }

  void build(std::shared_ptr<const discovery::ProbeResults> found) {
    probed = Clock::now();
    // What the next round builds on: these results describe the scripts as they are now,
    // whether or not the catalog they make is served.
    probes = found;
    round = discovery::counts(*found);
    off_loop([&io = io, weak = weak_from_this(), found = std::move(found),
              catalog_memo = options.catalog_memo, offering_memo = options.offering_memo,
              discovery_options = options.discovery, dirs = options.resource_dirs,
              page_size = options.page_size, live = options.live]() mutable {
      auto next = std::make_shared<discovery::Catalog>(
          discovery::catalog_from_probes(*found, discovery_options, catalog_memo.get()));
      auto offering =
          std::make_shared<const mcp::Offering>(*next, dirs, live, page_size, offering_memo.get());
      found.reset();  // what only this round held is freed here, not on the loop
      asio::post(io, [weak, next, offering, reuse = reused(*catalog_memo, *offering_memo)] {
        if (auto self = weak.lock()) self->built(std::move(*next), offering, reuse);
      });
    });
  }

  // The swap is all the loop does: the old catalog and Offering are freed in the background
  // (for 100 scripts that took 1.5-2.5 ms of the loop). A call still running holds its own
  // reference to the old Offering and frees it when it ends.
  void built(discovery::Catalog next, std::shared_ptr<const mcp::Offering> offering,
             const std::string& reuse) {
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
      log.info("reload: probed " + std::to_string(round.probed) + " of " +
               std::to_string(round.scripts) + " scripts in " + in_ms(probed - began) +
               ", building " + in_ms(arrived - probed) + " off the loop, swap " +
               in_ms(Clock::now() - arrived) + " on the loop" + reuse + started_again(round));
    }
    if (again) {
      again = false;
      schedule();
    }
  }

  void retire(std::shared_ptr<const mcp::Offering> offering, discovery::Catalog catalog) {
    off_loop([offering = std::move(offering), catalog = std::move(catalog)]() mutable {
      offering.reset();
      catalog = {};
    });
  }

  // Runs `job` on the background thread, in the order given, in slices of kBuildSlice; on
  // the loop, now, when no thread can be had (the user's process limit, say): the reload
  // then costs the loop what it saves otherwise, and no exception leaves the loop.
  template <typename Job>
  void off_loop(Job&& job) {
    if (!background) {
      try {
        background.emplace(1);
        asio::post(*background, become_background);
      } catch (const std::exception& e) {  // boost::system::system_error, std::bad_alloc
        log.warning(std::string("reload: no background thread (") + e.what() +
                    "): this reload runs on the loop");
        return job();
      }
    }
    asio::post(*background, [job = std::forward<Job>(job)]() mutable {
      const execution::YieldingScope slices(kBuildSlice);
      job();
    });
  }

  ~Impl() {
    // Jobs not started are dropped (what they hold is freed here); one running ends first:
    // it reaches the loop only through a weak pointer, which no longer locks.
    if (background) {
      background->stop();
      background->join();
    }
  }

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
  // The last round's probe results, and what changed since (watched paths that reported a
  // change); `everything`: the next round probes every script.
  std::shared_ptr<const discovery::ProbeResults> probes;
  std::set<std::string> dirty;
  bool everything = false;
  discovery::ProbeCounts round;  // of the reload running
  std::set<std::string> sources;
  std::map<std::string, std::set<std::string>> watchers;  // @watch path -> URIs
  bool running = false, again = false;
  std::size_t count = 0;
  Clock::time_point began, probed;  // of the reload running
  // Lists the scripts, builds the next catalog and Offering, frees the ones replaced: one
  // thread at nice +10, made at the first reload.
  std::optional<asio::thread_pool> background;
};

Reloader::Reloader(asio::io_context& io, execution::Runner& runner, mcp::ProtocolCore& core,
                   ReloadOptions options, diagnostics::Log& log)
    : impl_(std::make_shared<Impl>(io, runner, core, std::move(options), log)) {}

Reloader::~Reloader() = default;

void Reloader::start(const discovery::Catalog& current,
                     std::shared_ptr<const discovery::ProbeResults> probes) {
  impl_->start(current, std::move(probes));
}

void Reloader::reload_now() { impl_->reload_all(); }

std::size_t Reloader::reloads() const { return impl_->count; }

}  // namespace mcpsh::reload
