#pragma once
// A ProtocolCore with a FakeRunner, a manual clock and any number of connections, each
// keeping the lines sent to it.
#include <memory>
#include <string>
#include <vector>

#include "manual_wakeups.h"
#include "mcp/protocol_core.h"
#include "server_harness.h"

namespace mcpsh::testing {

struct RecordingConnection : mcp::Connection {
  void send(std::string line, const mcp::Outgoing& what) override {
    lines.push_back(std::move(line));
    kinds.push_back(what);
  }
  std::vector<mcp::Outgoing> kinds;
  std::vector<std::string> lines;
};

struct CoreHarness {
  explicit CoreHarness(mcp::CoreOptions options = {})
      : core(std::make_unique<mcp::ProtocolCore>(catalog, runner, options, time, log)) {}

  std::shared_ptr<RecordingConnection> connect() { return std::make_shared<RecordingConnection>(); }

  discovery::Catalog catalog = test_catalog();
  FakeRunner runner;
  ManualWakeups time;
  diagnostics::Log log{"", diagnostics::Level::kOff};
  std::unique_ptr<mcp::ProtocolCore> core;
};

inline std::vector<std::string> with_method(const std::vector<std::string>& lines,
                                            const std::string& method) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    if (method_of(l) == method) out.push_back(l);
  return out;
}

}  // namespace mcpsh::testing
