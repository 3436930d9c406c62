#include "reload/reloader.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <filesystem>

#include "diagnostics/log.h"

namespace mcpsh::reload {

namespace asio = boost::asio;

namespace {

// Why a new catalog is worse than the one served: a script that no longer loads, or a
// catalog that could not start the host.
std::string regression(const discovery::Catalog& next, const discovery::Catalog& last) {
  if (next.fatal) {
    for (const auto& p : next.problems)
      if (p.severity == discovery::Problem::Severity::kError) return p.what;
    return "the scripts define the same name twice";
  }
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
    watch.watch(files, folders);
  }

  void changed(const std::string& path) {
    if (auto it = watchers.find(path); it != watchers.end())
      for (const auto& uri : it->second) {
        log.debug("resource " + uri + " changed (" + path + ")");
        core.resource_changed(uri);
      }
    if (!sources.count(path)) return;
    log.debug(path + " changed");
    if (running) {
      again = true;
      return;
    }
    timer.expires_after(options.debounce);
    timer.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
      if (auto self = weak.lock(); self && !ec) self->reload();
    });
  }

  void reload() {
    running = true;
    discovery::discover_async(io, runner, options.discovery,
                              [weak = weak_from_this()](discovery::Catalog next) {
                                if (auto self = weak.lock()) self->discovered(std::move(next));
                              });
  }

  void discovered(discovery::Catalog next) {
    running = false;
    ++count;
    if (std::string why = regression(next, last); !why.empty()) {
      log.warning("reload: keeping the catalog served so far: " + why);
    } else {
      core.replace_offering(
          std::make_shared<mcp::Offering>(next, options.resource_dirs, /*live=*/true,
                                          options.page_size));
      for (const auto& p : core.offering().problems) log.warning("reload: " + p.where + ": " + p.what);
      last = std::move(next);
      rewatch();
    }
    if (again) {
      again = false;
      changed(*sources.begin());
    }
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
};

Reloader::Reloader(asio::io_context& io, execution::Runner& runner, mcp::ProtocolCore& core,
                   ReloadOptions options, diagnostics::Log& log)
    : impl_(std::make_shared<Impl>(io, runner, core, std::move(options), log)) {}

Reloader::~Reloader() = default;

void Reloader::start(const discovery::Catalog& current) { impl_->start(current); }

std::size_t Reloader::reloads() const { return impl_->count; }

}  // namespace mcpsh::reload
