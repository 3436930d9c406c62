#pragma once
// One TCP connection: HTTP/1.1 requests read one at a time (keep-alive), each checked,
// handed to the protocol core and answered, in order.
//
// Lifecycle of a request: waiting (idle timeout; the header timeout for the first one) ->
// header (header timeout, --max-header) -> transport checks -> body (--max-body, read
// within the idle timeout) -> pending (the core has it; the socket is watched: EOF or an
// error means the client is gone and its call is cancelled) -> responding (the response
// is written; then the next request, or close).
//
// Contract:
//  - Single-threaded (the io_context's). Owned by HttpServer through shared_ptr; the
//    asynchronous operations hold it too, so it lives until they have all finished.
//  - Every request is answered once: by the transport (a refusal), with 202 (a
//    notification), or with the core's response (JSON or SSE). A request whose client is
//    gone gets nothing, and the core is told (disconnected).
//  - Output is bounded: SSE notifications the client leaves unread beyond --max-buffered
//    count as the client being gone.
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "http/exchange_connection.h"
#include "http/http_options.h"
#include "http/legacy_sessions.h"
#include "http/request_checks.h"
#include "mcp/audit_record.h"

namespace mcpsh::diagnostics {
class Log;
}
namespace mcpsh::mcp {
class ProtocolCore;
}

namespace mcpsh::http {

// What every session of a server shares. Outlives the sessions' use of it: the server
// closes them all before it goes.
struct SessionContext {
  const HttpOptions& options;
  mcp::ProtocolCore& core;
  diagnostics::Log& log;
  std::function<void(const mcp::AuditRecord&)> audit;  // may be empty
  bool loopback_bound = true;
  bool stopping = false;            // no new requests: each connection closes after its response
  std::function<void()> on_closed;  // a session closed (after the server forgot it)
  std::function<std::string()> metrics;  // GET /metrics: the exposition; empty: no /metrics
  // The initialize era's sessions (the server's; exchanges hold them weakly).
  std::shared_ptr<LegacySessions> legacy_sessions;
};

class Session : public ResponseSink, public std::enable_shared_from_this<Session> {
 public:
  enum class State { kWaiting, kHeader, kBody, kPending, kResponding, kRefusing, kClosed };

  // `over_limit`: accepted beyond --max-connections; its first request is refused with
  // 503 and the connection closed.
  Session(boost::asio::ip::tcp::socket socket, SessionContext& context, bool over_limit,
          std::function<void(Session*)> forget);
  ~Session() override;
  void start();

  // The server is stopping: close now if no request is being served or arriving (bytes of
  // one read or waiting in the socket); otherwise close after its response.
  void stop_when_done();
  // The host gave up on its calls: a request still arriving would run a tool that is cut
  // off at once, so the connection closes now (nothing of it reached the core).
  void close_unless_answering();
  // Close now; a call in flight is cancelled.
  void close_now();
  State state() const { return state_; }

  int deliver(ExchangeConnection& from, std::string line, const mcp::Outgoing& what) override;

 private:
  void read_more();
  void on_read(const boost::system::error_code& ec, std::size_t n);
  void parse();
  void on_header();
  void on_request();
  void refuse(Refusal refusal);
  bool answer_probe();
  void respond_accepted();
  void queue(std::string bytes);
  void flush();
  void on_written(const boost::system::error_code& ec, std::size_t n);
  void next_request();
  void arm(std::chrono::milliseconds timeout);
  void on_deadline();
  void client_gone(const char* why);
  void close();

  boost::asio::ip::tcp::socket socket_;
  SessionContext& context_;
  bool over_limit_;
  std::function<void(Session*)> forget_;
  std::string remote_;
  State state_ = State::kWaiting;
  bool first_request_ = true;

  boost::beast::flat_buffer input_;
  bool reading_ = false;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  boost::asio::steady_timer deadline_;

  // The request being served.
  std::shared_ptr<ExchangeConnection> exchange_;
  bool keep_alive_ = true;
  Acceptable accept_;
  bool sse_ = false;

  // Output: written in order, one async_write at a time; write_deadline_ bounds each.
  std::deque<std::string> output_;
  std::size_t output_bytes_ = 0;
  std::size_t writing_ = 0;  // items of output_ in the write in flight
  boost::asio::steady_timer write_deadline_;
};

}  // namespace mcpsh::http
