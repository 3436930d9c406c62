#include "reload/reloader.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cerrno>
#include <filesystem>
#include <thread>

#include "diagnostics/log.h"

namespace mcpsh::reload {

namespace asio = boost::asio;

namespace {

// Added to the nice value of the thread that builds the next catalog.
constexpr int kBuildNiceness = 10;

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

  // The probes run as children of the loop; what follows them (reading every script's
  // comments, compiling schemas and templates, rendering the lists) runs on a thread of
  // its own, so that no request waits for it; the swap itself is back on the loop.
  void reload() {
    running = true;
    discovery::probe_scripts(
        io, runner, options.discovery,
        [weak = weak_from_this()](std::shared_ptr<discovery::ProbeResults> probes) {
          if (auto self = weak.lock()) self->build(std::move(probes));
        });
  }

  void build(std::shared_ptr<discovery::ProbeResults> probes) {
    if (worker.joinable()) worker.join();  // the previous build, long done
    // The thread touches only its own copies, and the loop through post().
    worker = std::thread([&io = io, weak = weak_from_this(), probes = std::move(probes),
                          discovery_options = options.discovery, dirs = options.resource_dirs,
                          page_size = options.page_size, live = options.live] {
      // Background work: this thread yields the CPU to the loop (Linux keeps a nice value
      // per thread). Best effort: at worst it competes as an equal.
      const auto self = static_cast<id_t>(::gettid());
      errno = 0;
      const int current = ::getpriority(PRIO_PROCESS, self);
      if (errno == 0) ::setpriority(PRIO_PROCESS, self, std::min(current + kBuildNiceness, 19));
      auto next = std::make_shared<discovery::Catalog>(
          discovery::catalog_from_probes(*probes, discovery_options));
      auto offering = std::make_shared<const mcp::Offering>(*next, dirs, live, page_size);
      asio::post(io, [weak, next, offering] {
        if (auto self = weak.lock()) self->built(std::move(*next), offering);
      });
    });
  }

  void built(discovery::Catalog next, std::shared_ptr<const mcp::Offering> offering) {
    running = false;
    ++count;
    if (std::string why = regression(next, last); !why.empty()) {
      log.warning("reload: keeping the catalog served so far: " + why);
    } else {
      for (const auto& p : offering->problems) log.warning("reload: " + p.where + ": " + p.what);
      core.replace_offering(std::move(offering));
      last = std::move(next);
      rewatch();
    }
    if (again) {
      again = false;
      schedule();
    }
  }

  ~Impl() {
    if (worker.joinable()) worker.join();
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
  // Builds the next catalog and Offering; joined before the next build and on destruction
  // (it posts to the loop only through a weak pointer).
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
