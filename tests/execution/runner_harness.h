#pragma once
// Helpers for driving a ProcessRunner in tests: bash launches, an event loop driven until
// a condition holds, and a forked "host" process for tests that change process-wide state
// (seccomp filters, dumpability, resource limits) which must not leak into the others.
#include <boost/asio/io_context.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "execution/fd_guard.h"
#include "execution/process_runner.h"

namespace mcpsh::execution::testing {

inline constexpr const char* kBash = "/bin/bash";

LaunchSpec bash(const std::string& script, Limits limits = {});

// A sealed memfd holding `bytes`, at offset 0: a payload for a child's fd 5. Throws
// std::runtime_error naming the failed call.
FdGuard make_payload_file(const std::string& bytes);

// Runs the loop until done() holds. A hang guard, not a timing assertion: false only
// when a minute passed without it.
bool drive_until(boost::asio::io_context& io, const std::function<bool()>& done);

// What one run reported.
struct Report {
  std::optional<Outcome> outcome;
  std::vector<std::string> channel;
  std::vector<std::string> stderr_lines;
  int done_calls = 0;
};
// Callbacks that fill `report` (which must outlive the run).
RunCallbacks record_into(Report& report);

// Starts spec and drives io until it ended; the outcome (a default Outcome on a hang).
Report run_to_end(boost::asio::io_context& io, Runner& runner, LaunchSpec spec);

// Runs body in a forked child of the test process and returns what it returned ("" for
// success, else what went wrong), or a description of how the child died.
std::string in_forked_host(const std::function<std::string()>& body);

// The children of this process that are not a runner's watchdog.
std::vector<pid_t> children_except_watchdogs();

}  // namespace mcpsh::execution::testing
