#pragma once
// The listener: binds the endpoint, accepts connections and keeps their sessions, within
// --max-connections.
//
// Beyond the limit, up to kOverflow more connections are accepted only to be answered
// 503 (Retry-After: 1) and closed: a client learns why instead of hanging in the kernel's
// backlog. Beyond that too, accepting pauses until a connection closes, so descriptors
// stay bounded.
//
// Contract: single-threaded (the io_context's). The core, log and options must outlive
// the server. The destructor closes every connection (their calls are cancelled).
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "http/http_options.h"
#include "http/session.h"

namespace mcpsh::http {

class HttpServer {
 public:
  using Audit = std::function<void(const mcp::AuditRecord&)>;
  static constexpr std::size_t kOverflow = 64;

  HttpServer(boost::asio::io_context& io, mcp::ProtocolCore& core, HttpOptions options,
             diagnostics::Log& log, Audit audit = {});
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Resolves the host, binds and listens. Returns an error text for the user on failure.
  std::optional<std::string> listen();
  // Serves on a listening TCP socket that was handed to the host (socket activation) in
  // place of listen(); the server owns it from now on. Returns an error text for the user
  // when it is not one (another family, not listening, not a socket at all).
  std::optional<std::string> adopt(int fd);
  // "http://127.0.0.1:43117/mcp": the bound address, with the port the kernel chose.
  std::string url() const;
  void start();

  // Graceful stop: accept no more (connections already in the backlog are taken first),
  // close idle connections; a connection whose request is being served, or has begun to
  // arrive, closes after its response.
  void stop_accepting();
  // /readyz answers 503 from now on, and connections close after their response; the
  // listener stays open (the operations listener, which serves until the host exits).
  void mark_stopping() { context_.stopping = true; }
  // After a stop, once the calls were given up: close the connections whose request is
  // still arriving or has not come (their answer could not be given).
  void close_unanswered();
  // Close every connection now; their calls are cancelled.
  void close_all();
  // Close the connections whose request is still with the core (when the core has
  // nothing left to answer, after a stop).
  void close_waiting();
  // Connections whose request is still with the core (pending) or being written.
  std::size_t busy() const;
  std::size_t connections() const { return sessions_.size(); }
  // Called after any connection closed.
  void set_on_closed(std::function<void()> f) { on_closed_ = std::move(f); }
  // Serves GET /metrics with what `render` returns (behind the bearer token, when one is
  // set); without it there is no /metrics.
  void set_metrics(std::function<std::string()> render) { context_.metrics = std::move(render); }

 private:
  void accept();
  void on_accept(const boost::system::error_code& ec, boost::asio::ip::tcp::socket socket);
  void add_session(boost::asio::ip::tcp::socket socket);
  void forget(Session* session);

  boost::asio::io_context& io_;
  HttpOptions options_;
  SessionContext context_;
  boost::asio::ip::tcp::acceptor acceptor_;
  bool adopted_ = false;             // the listening socket came from a service manager (adopt)
  boost::asio::steady_timer retry_;  // accepting again after running out of descriptors
  std::unordered_map<Session*, std::shared_ptr<Session>> sessions_;
  bool accepting_ = false, paused_ = false, stopped_ = false;
  std::function<void()> on_closed_;
};

}  // namespace mcpsh::http
