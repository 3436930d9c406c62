#include "protocol_adapter.h"

#include <boost/asio/io_context.hpp>

#include "diagnostics/log.h"
#include "mcp/server.h"

namespace mcpsh::fuzz {

struct ProtocolUnderTest::Impl {
  // Off: a fuzzer writing a log line per input would spend its time formatting stamps.
  diagnostics::Log log{"", diagnostics::Level::kOff};
  mcp::Server server;

  Impl(boost::asio::io_context& io, const discovery::Catalog& catalog,
       execution::CallRunner& runner, const execution::Limits& limits, Send send)
      : server(io, catalog, runner, options_for(limits), std::move(send), log) {
    server.start_warm();
  }

  static mcp::ServerOptions options_for(const execution::Limits& limits) {
    mcp::ServerOptions options;
    options.limits = limits;
    // Small enough that a few calls in one input fill the slots and queue.
    options.max_concurrency = 2;
    // Heartbeats are timers: they would make a run depend on the clock.
    options.heartbeat = std::chrono::milliseconds(0);
    return options;
  }
};

ProtocolUnderTest::ProtocolUnderTest(boost::asio::io_context& io, const discovery::Catalog& catalog,
                                     execution::CallRunner& runner, const execution::Limits& limits,
                                     Send send)
    : impl_(std::make_unique<Impl>(io, catalog, runner, limits, std::move(send))) {}
ProtocolUnderTest::~ProtocolUnderTest() = default;

void ProtocolUnderTest::line(std::string_view line) { impl_->server.on_line(std::string(line)); }
void ProtocolUnderTest::oversized(std::size_t size) { impl_->server.on_oversized_line(size); }
void ProtocolUnderTest::input_closed() { impl_->server.input_closed(); }
void ProtocolUnderTest::stop_all() { impl_->server.stop_all(std::chrono::milliseconds(0)); }
std::size_t ProtocolUnderTest::in_flight() const { return impl_->server.in_flight(); }

}  // namespace mcpsh::fuzz
