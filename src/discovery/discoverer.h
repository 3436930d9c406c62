#pragma once
// Builds the Catalog from the command line's scripts and directories: probes every script
// concurrently, then reads metadata (tools files, comment blocks, config file).
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "discovery/catalog.h"
#include "sandbox/policy.h"

namespace boost::asio {
class io_context;
}
namespace mcpsh::execution {
class Runner;
}

namespace mcpsh::discovery {

struct DiscoveryOptions {
  std::vector<std::string> paths;              // scripts and/or directories
  std::optional<std::string> tools_list_file;  // overrides MCP_TOOLS_LIST_FILE of every script
  std::optional<std::string> config_file;      // overrides MCP_CONFIG_FILE
  std::string bash;                            // absolute path
  std::chrono::milliseconds probe_timeout{10000};
  // Probes running at once, each started in a turn of the loop of its own; 0: all at once
  // (start-up, where nothing else is waiting). A reload limits them so that requests
  // served meanwhile wait for one process start at most.
  std::size_t max_probes = 0;
  // Added to the probes' nice value: a reload is background work (0 at start-up).
  int probe_niceness = 0;
  // When above zero and below probe_timeout (a reload), each probe starts in the idle
  // scheduling class (the spawner moves it there right after its exec), where it
  // runs only on a CPU nothing else wants, and may wait this long there: one that has not
  // ended by then is stopped and started again in the normal class (at probe_niceness,
  // with the whole probe_timeout), and so are the round's probes not started yet, since
  // the machine is busy. An unprivileged process cannot leave the idle class itself.
  std::chrono::milliseconds probe_idle_for{0};
  // Every function's confinement starts from these (--sandbox, --env-allow/--env-deny);
  // a tool's @sandbox narrows the first, its @env widens the allow list of the second.
  // Probes run unconfined: they only source the script, as the operator could.
  sandbox::Policy sandbox;
  execution::EnvPolicy env;
};

// What the probes found: one result per script, shared between the probe rounds that find
// the script unchanged (a reload keeps the last round's results and probes again only what
// changed). Immutable once probed; any thread may read it.
struct ProbeResults;
struct ProbeCounts {
  std::size_t scripts = 0;        // the scripts the round covers
  std::size_t probed = 0;         // how many of them it probed (the others kept their last result)
  std::size_t started_again = 0;  // probes stopped in the idle class and started again
};
ProbeCounts counts(const ProbeResults& probes);

// The two halves of probe_scripts, for a caller that lists the scripts off the loop (a
// reload: listing a folder of 100 takes milliseconds). plan_probes is pure (any thread):
// what the round covers, with the results it keeps from `previous`. run_probes probes the
// rest, as children of `runner`, and reports on `io`'s thread, never from inside the call.
std::shared_ptr<ProbeResults> plan_probes(const DiscoveryOptions& options,
                                          const ProbeResults* previous,
                                          const std::vector<std::string>& changed);
void run_probes(boost::asio::io_context& io, execution::Runner& runner,
                const DiscoveryOptions& options, std::shared_ptr<ProbeResults> plan,
                std::function<void(std::shared_ptr<const ProbeResults>)> done);

// Probes the scripts; `done` gets the results later, on `io`'s thread, once every probe
// ended (never from inside this call). With `previous` (the results of the last round), a
// script is probed again only if it is new, its last probe did not complete, or it or a
// file that defines one of its functions is among the `changed` paths; the others
// keep their result. Without it, every script is probed.
//
// What the probes cannot tell is out of reach of this rule: a script whose definitions
// depend on a file it sources that defines none of its functions, on the environment, or
// on other state, is probed again when it changes itself or when every script is (start,
// SIGHUP).
void probe_scripts(boost::asio::io_context& io, execution::Runner& runner,
                   const DiscoveryOptions& options, std::shared_ptr<const ProbeResults> previous,
                   const std::vector<std::string>& changed,
                   std::function<void(std::shared_ptr<const ProbeResults>)> done);
// What a catalog build parsed of the scripts' comment blocks, for the next build to reuse
// for each script whose probe result the next round reuses (unchanged files: adr/0024).
// Tools files and config files are read again by every build. One build at a time.
class CatalogMemo {
 public:
  CatalogMemo();
  ~CatalogMemo();
  CatalogMemo(const CatalogMemo&) = delete;
  CatalogMemo& operator=(const CatalogMemo&) = delete;
  // Comment blocks the last build parsed, and those it took from the build before it.
  std::size_t parsed() const;
  std::size_t reused() const;

  struct State;  // comment_memo.h
  std::unique_ptr<State> state;
};

// The catalog from what the probes found: pure (reads the scripts' comments, tools files
// and config file), any thread. With `memo`, the comment blocks it parsed last time for a
// script whose probe result is the same object are not read again, and it keeps this
// build's for the next.
Catalog catalog_from_probes(const ProbeResults& probes, const DiscoveryOptions& options,
                            CatalogMemo* memo = nullptr);

// Probes every script and builds the catalog, running `io` until it is done (start-up and
// the one-shot verbs). `probes`, when given, receives what the probes found, and `memo`
// what the build parsed, for a later round to build on.
Catalog discover(boost::asio::io_context& io, execution::Runner& runner,
                 const DiscoveryOptions& options,
                 std::shared_ptr<const ProbeResults>* probes = nullptr,
                 CatalogMemo* memo = nullptr);

// Directories expand to their *.sh files (sorted); paths become absolute; a file named twice
// (directly, through its directory, a symbolic or a hard link) is listed once, first as named.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths,
                                      std::vector<Problem>& problems);

}  // namespace mcpsh::discovery
