#include "http/http_server.h"

#include <sys/socket.h>

#include <boost/asio/ip/address.hpp>
#include <vector>

#include "diagnostics/log.h"
#include "http/origin_policy.h"

namespace mcpsh::http {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

HttpServer::HttpServer(asio::io_context& io, mcp::ProtocolCore& core, HttpOptions options,
                       diagnostics::Log& log, Audit audit)
    : io_(io),
      options_(std::move(options)),
      context_{options_, core, log, std::move(audit)},
      acceptor_(io),
      retry_(io) {
  context_.on_closed = [this] {
    if (on_closed_) on_closed_();
  };
  context_.legacy_sessions = std::make_shared<LegacySessions>();
}

HttpServer::~HttpServer() {
  on_closed_ = nullptr;
  close_all();
}

std::optional<std::string> HttpServer::listen() {
  boost::system::error_code ec;
  tcp::resolver resolver(io_);
  auto results = resolver.resolve(options_.host, std::to_string(options_.port),
                                  tcp::resolver::numeric_service, ec);
  if (ec || results.empty())
    return "cannot resolve the listen address " + options_.host + ": " + ec.message();
  const tcp::endpoint endpoint = results.begin()->endpoint();
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    return "cannot listen on " + options_.host + ":" + std::to_string(options_.port) + ": " +
           ec.message();
  }
  context_.loopback_bound = endpoint.address().is_loopback();
  return std::nullopt;
}

std::optional<std::string> HttpServer::adopt(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  int listening = 0;
  socklen_t size = sizeof listening;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
      (address.ss_family != AF_INET && address.ss_family != AF_INET6))
    return "the socket passed as descriptor " + std::to_string(fd) +
           " is not a TCP socket (an IPv4 or IPv6 stream socket is needed)";
  if (::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || !listening)
    return "the socket passed as descriptor " + std::to_string(fd) + " is not listening";
  boost::system::error_code ec;
  acceptor_.assign(address.ss_family == AF_INET ? tcp::v4() : tcp::v6(), fd, ec);
  if (ec) return "cannot serve on descriptor " + std::to_string(fd) + ": " + ec.message();
  const tcp::endpoint endpoint = acceptor_.local_endpoint(ec);
  context_.loopback_bound = !ec && endpoint.address().is_loopback();
  adopted_ = true;
  return std::nullopt;
}

std::string HttpServer::url() const {
  boost::system::error_code ec;
  const tcp::endpoint e = acceptor_.local_endpoint(ec);
  const std::string host =
      e.address().is_v6() ? "[" + e.address().to_string() + "]" : e.address().to_string();
  return "http://" + host + ":" + std::to_string(e.port()) + options_.path;
}

void HttpServer::start() {
  accepting_ = true;
  accept();
}

void HttpServer::accept() {
  if (!accepting_ || paused_ || !acceptor_.is_open()) return;
  if (sessions_.size() >= options_.max_connections + kOverflow) {
    paused_ = true;  // resumed by forget()
    return;
  }
  acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
    on_accept(ec, std::move(socket));
  });
}

void HttpServer::on_accept(const boost::system::error_code& ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted) return;
  if (ec) {
    if (!accepting_) return;
    // Out of descriptors (EMFILE, ENFILE) and the like: try again shortly rather than
    // spin on an error that a closing connection will clear.
    context_.log.warning("accepting a connection failed: " + ec.message());
    retry_.expires_after(std::chrono::milliseconds(100));
    retry_.async_wait([this](const boost::system::error_code& e) {
      if (!e) accept();
    });
    return;
  }
  add_session(std::move(socket));
  accept();
}

void HttpServer::add_session(tcp::socket socket) {
  const bool over_limit = sessions_.size() >= options_.max_connections;
  if (over_limit)
    context_.log.warning("connection limit (" + std::to_string(options_.max_connections) +
                         ") reached: refusing a connection with 503");
  auto session = std::make_shared<Session>(std::move(socket), context_, over_limit,
                                           [this](Session* s) { forget(s); });
  sessions_.emplace(session.get(), session);
  session->start();
  // Accepted while stopping (taken from the backlog, or an accept that completed as the
  // listener closed): served if its request is already there, closed if not.
  if (!accepting_) session->stop_when_done();
}

void HttpServer::forget(Session* session) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  // The session may be running this call: it is released once the call returns.
  auto keep = std::move(it->second);
  sessions_.erase(it);
  asio::post(io_, [keep = std::move(keep)] {});
  if (paused_ && sessions_.size() < options_.max_connections + kOverflow) {
    paused_ = false;
    accept();
  }
  if (context_.on_closed) context_.on_closed();
}

void HttpServer::stop_accepting() {
  accepting_ = false;
  context_.stopping = true;
  std::vector<std::shared_ptr<Session>> all;
  for (auto& [_, s] : sessions_) all.push_back(s);
  for (auto& s : all) s->stop_when_done();
  // Connections the kernel completed that nobody accepted yet would be reset when the
  // listener closes, though their clients may have sent a request already: they are taken
  // now, within the connection bound, and treated like the open ones above. Not from a
  // socket a service manager handed over: it keeps listening, and what waits there is for
  // the host it starts next.
  boost::system::error_code ec;
  if (!adopted_) acceptor_.non_blocking(true, ec);
  while (!adopted_ && !ec && acceptor_.is_open() &&
         sessions_.size() < options_.max_connections + kOverflow) {
    tcp::socket socket(io_);
    acceptor_.accept(socket, ec);
    if (!ec) add_session(std::move(socket));
  }
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  retry_.cancel();
}

void HttpServer::close_unanswered() {
  std::vector<std::shared_ptr<Session>> all;
  for (auto& [_, s] : sessions_) all.push_back(s);
  for (auto& s : all) s->close_unless_answering();
}

void HttpServer::close_all() {
  std::vector<std::shared_ptr<Session>> all;
  for (auto& [_, s] : sessions_) all.push_back(s);
  for (auto& s : all) s->close_now();
}

void HttpServer::close_waiting() {
  std::vector<std::shared_ptr<Session>> waiting;
  for (auto& [_, s] : sessions_)
    if (s->state() == Session::State::kPending) waiting.push_back(s);
  for (auto& s : waiting) s->close_now();
}

std::size_t HttpServer::busy() const {
  std::size_t n = 0;
  for (const auto& [_, s] : sessions_)
    if (s->state() == Session::State::kPending || s->state() == Session::State::kResponding) ++n;
  return n;
}

}  // namespace mcpsh::http
