#pragma once
// Live reload: watches what the catalog came from and, when it changes (or when asked:
// SIGHUP), discovers again in the background and hands the new catalog to the protocol core, which
// swaps it atomically (calls in flight finish on the old one) and tells the clients that listen.
//
//  - Changes are debounced (a save is a burst of events) and reloads never overlap: a
//    change during a reload starts one more when it ends.
//  - A change probes again only the scripts it touches (the script, or a file defining its
//    functions) and those whose last probe failed; the others keep what their last probe
//    found (adr/0020). SIGHUP probes all.
//  - A reload whose scripts now fail (a syntax error, a script that stops while sourced,
//    a duplicate name) keeps the last good catalog and logs why.
//  - A file or folder a resource declares with @watch, when it changes, is reported as
//    notifications/resources/updated for that resource's URI (fixed URIs).
// Single-threaded (the io_context's). The core, the runner and the log must outlive it.
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "discovery/discoverer.h"
#include "mcp/protocol_core.h"
#include "reload/file_watch.h"

namespace boost::asio {
class io_context;
}
namespace mcpsh::diagnostics {
class Log;
}

namespace mcpsh::reload {

struct ReloadOptions {
  discovery::DiscoveryOptions discovery;
  std::vector<std::string> resource_dirs;
  std::size_t page_size = mcp::Offering::kDefaultPageSize;
  std::chrono::milliseconds debounce{50};
  // Reload when the files change; false (--no-watch): only when reload_now() asks.
  bool watch = true;
  // Whether the offerings built tell clients of changes (listChanged, subscribe): what the
  // first one said (ProtocolCore's CoreOptions::live), so that a reload never changes it.
  bool live = true;
  // What the start-up build parsed and compiled (null: nothing), which every reload's build
  // then reuses and renews for what did not change (adr/0024). From here on only the
  // reloader's background thread uses them.
  std::shared_ptr<discovery::CatalogMemo> catalog_memo;
  std::shared_ptr<mcp::OfferingMemo> offering_memo;
};

class Reloader {
 public:
  Reloader(boost::asio::io_context& io, execution::Runner& runner, mcp::ProtocolCore& core,
           ReloadOptions options, diagnostics::Log& log);
  ~Reloader();
  Reloader(const Reloader&) = delete;
  Reloader& operator=(const Reloader&) = delete;

  // Starts watching what `current` (the catalog the core serves) came from; `probes`: what
  // its probes found (null: the first reload probes every script).
  void start(const discovery::Catalog& current,
             std::shared_ptr<const discovery::ProbeResults> probes);
  // Discovers again now (SIGHUP), probing every script, changed or not: calls in flight are
  // not touched, and a catalog that got worse is not served.
  void reload_now();
  // Reloads done so far (for tests and the log).
  std::size_t reloads() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace mcpsh::reload
