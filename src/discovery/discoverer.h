#pragma once
// Builds the Catalog from the command line's scripts and directories: probes every script
// concurrently, then reads metadata (tools files, comment blocks, config file).
#include <chrono>
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
  // Every function's confinement starts from these (--sandbox, --env-allow/--env-deny);
  // a tool's @sandbox narrows the first, its @env widens the allow list of the second.
  // Probes run unconfined: they only source the script, as the operator could.
  sandbox::Policy sandbox;
  execution::EnvPolicy env;
};

// Starts discovery: `done` gets the catalog later, on `io`'s thread, once every probe
// ended (never from inside this call). Problems are recorded in the catalog, never thrown.
// The probes run as child processes; reading the scripts' comments happens in `done`'s
// turn of the loop.
void discover_async(boost::asio::io_context& io, execution::Runner& runner,
                    const DiscoveryOptions& options, std::function<void(Catalog)> done);
// The two halves of discover_async, for a caller that reads the scripts' comments off the
// loop's thread (a reload): the probes (children of `runner`, reported on `io`'s thread),
// then the catalog from what they found (pure: reads the scripts, any thread).
struct ProbeResults;
void probe_scripts(boost::asio::io_context& io, execution::Runner& runner,
                   const DiscoveryOptions& options,
                   std::function<void(std::shared_ptr<ProbeResults>)> done);
Catalog catalog_from_probes(const ProbeResults& probes, const DiscoveryOptions& options);

// The same, running `io` until it is done (start-up and the one-shot verbs).
Catalog discover(boost::asio::io_context& io, execution::Runner& runner,
                 const DiscoveryOptions& options);

// Directories expand to their *.sh files (sorted); paths become absolute.
std::vector<std::string> expand_paths(const std::vector<std::string>& paths,
                                      std::vector<Problem>& problems);

}  // namespace mcpsh::discovery
