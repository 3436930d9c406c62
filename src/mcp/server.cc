#include "mcp/server.h"

#include "mcp/asio_wakeups.h"

namespace mcpsh::mcp {

namespace {
// stdio is one connection for the life of the process.
class StdioConnection : public Connection {
 public:
  explicit StdioConnection(Server::Send send) : send_(std::move(send)) {}
  void send(std::string line, const Outgoing&) override { send_(std::move(line)); }

 private:
  Server::Send send_;
};
}  // namespace

struct Server::Impl {
  Impl(boost::asio::io_context& io, const discovery::Catalog& catalog, execution::CallRunner& calls,
       ServerOptions options, Send send, diagnostics::Log& log, Audit audit)
      : wakeups(io),
        stdio(std::make_shared<StdioConnection>(std::move(send))),
        core(catalog, calls, std::move(options), wakeups, log, std::move(audit)) {}

  AsioWakeups wakeups;
  ConnectionPtr stdio;
  ProtocolCore core;
};

Server::Server(boost::asio::io_context& io, const discovery::Catalog& catalog,
               execution::CallRunner& calls, ServerOptions options, Send send,
               diagnostics::Log& log, Audit audit)
    : impl_(std::make_unique<Impl>(io, catalog, calls, std::move(options), std::move(send), log,
                                   std::move(audit))) {}
Server::~Server() = default;

void Server::on_line(std::string line) { impl_->core.handle(impl_->stdio, std::move(line)); }
void Server::on_oversized_line(std::size_t size) { impl_->core.oversized(impl_->stdio, size); }
std::size_t Server::in_flight() const { return impl_->core.calls().in_flight(); }
void Server::set_on_idle(std::function<void()> on_idle) {
  impl_->core.calls().set_on_idle(std::move(on_idle));
}
std::size_t Server::queued() const { return impl_->core.calls().queued(); }
void Server::set_on_dequeue(std::function<void()> on_dequeue) {
  impl_->core.calls().set_on_dequeue(std::move(on_dequeue));
}
void Server::stop_all(std::chrono::milliseconds grace) { impl_->core.calls().stop_all(grace); }
void Server::start_warm() { impl_->core.enable_warm(); }
void Server::input_closed() { impl_->core.input_closed(); }
void Server::end_subscriptions() { impl_->core.end_subscriptions(); }
ProtocolCore& Server::core() { return impl_->core; }
const std::vector<discovery::Problem>& Server::problems() const { return impl_->core.problems(); }

}  // namespace mcpsh::mcp
