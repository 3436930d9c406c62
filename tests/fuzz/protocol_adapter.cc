#include "protocol_adapter.h"

#include <boost/asio/io_context.hpp>

#include "diagnostics/log.h"
#include "mcp/asio_wakeups.h"
#include "mcp/audit_log.h"
#include "mcp/protocol_core.h"

namespace mcpsh::fuzz {

namespace {

class SessionConnection : public mcp::Connection {
 public:
  explicit SessionConnection(ProtocolUnderTest::Send send) : send_(std::move(send)) {}
  void send(std::string line, const mcp::Outgoing&) override { send_(std::move(line)); }

 private:
  ProtocolUnderTest::Send send_;
};

mcp::CoreOptions options_for(const execution::Limits& limits) {
  mcp::CoreOptions options;
  options.limits = limits;
  // Small enough that a few calls in one input fill the slots and queue.
  options.max_concurrency = 2;
  // Heartbeats are timers: they would make a run depend on the clock.
  options.heartbeat = std::chrono::milliseconds(0);
  return options;
}

}  // namespace

struct ProtocolUnderTest::Impl {
  // Off: a fuzzer writing a log line per input would spend its time formatting stamps.
  diagnostics::Log log{"", diagnostics::Level::kOff};
  mcp::AsioWakeups wakeups;
  mcp::ProtocolCore core;
  mcp::ConnectionPtr session;
  Send audit_line;

  Impl(boost::asio::io_context& io, const discovery::Catalog& catalog,
       execution::CallRunner& runner, const execution::Limits& limits)
      : wakeups(io),
        core(catalog, runner, options_for(limits), wakeups, log, [this](const mcp::AuditRecord& r) {
          std::string line = mcp::AuditLog::to_json_line(r);
          line.pop_back();  // its '\n'
          if (audit_line) audit_line(std::move(line));
        }) {
    // As serve does; the warm request reaches the runner once, in the first session
    // that lists or calls (the fake runner keeps no processes).
    core.enable_warm();
  }
};

ProtocolUnderTest::ProtocolUnderTest(boost::asio::io_context& io, const discovery::Catalog& catalog,
                                     execution::CallRunner& runner, const execution::Limits& limits)
    : impl_(std::make_unique<Impl>(io, catalog, runner, limits)) {}
ProtocolUnderTest::~ProtocolUnderTest() = default;

void ProtocolUnderTest::open(Send send, Send audit) {
  impl_->session = std::make_shared<SessionConnection>(std::move(send));
  impl_->audit_line = std::move(audit);
}

bool ProtocolUnderTest::close() {
  const bool alone = impl_->session.use_count() == 1;
  impl_->session.reset();
  impl_->audit_line = nullptr;
  return alone;
}

void ProtocolUnderTest::line(std::string_view line) {
  impl_->core.handle(impl_->session, std::string(line));
}
void ProtocolUnderTest::oversized(std::size_t size) { impl_->core.oversized(impl_->session, size); }
// As serve does at stdin's EOF: open subscriptions/listen streams are answered first.
void ProtocolUnderTest::input_closed() {
  impl_->core.end_subscriptions();
  impl_->core.input_closed();
}
void ProtocolUnderTest::stop_all() { impl_->core.calls().stop_all(std::chrono::milliseconds(0)); }
std::size_t ProtocolUnderTest::in_flight() const { return impl_->core.calls().in_flight(); }
std::size_t ProtocolUnderTest::queued() const { return impl_->core.calls().queued(); }

}  // namespace mcpsh::fuzz
