#include "http/session.h"

#include <strings.h>

#include <algorithm>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <vector>

#include "diagnostics/log.h"
#include "http/bearer_token.h"
#include "mcp/protocol_core.h"
#include "mcp/protocol_versions.h"

namespace mcpsh::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

namespace {

// Bytes a client may send ahead (pipelining) while its request is served; reading stops
// there until the response is out.
constexpr std::size_t kReadAhead = 64 << 10;
constexpr std::size_t kReadChunk = 16 << 10;

std::string_view view(beast::string_view s) { return {s.data(), s.size()}; }

std::string trimmed(beast::string_view s) {
  std::string_view v = view(s);
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return std::string(v);
}

std::string endpoint_text(const asio::ip::tcp::endpoint& e) {
  const auto address = e.address();
  const std::string host = address.is_v6() ? "[" + address.to_string() + "]" : address.to_string();
  return host + ":" + std::to_string(e.port());
}

// The request metadata headers, raw (MCP 2026-07-28 "Request Metadata").
mcp::MirroredHeaders mirrored_headers(const Request& request) {
  mcp::MirroredHeaders m;
  constexpr std::string_view kParam = "mcp-param-";
  for (const auto& field : request) {
    std::string_view name = view(field.name_string());
    auto is = [&](std::string_view wanted) {
      return name.size() == wanted.size() &&
             ::strncasecmp(name.data(), wanted.data(), wanted.size()) == 0;
    };
    // A header sent twice is one comma-joined value (RFC 9110 §5.3), which matches no body
    // value: an intermediary that reads one copy and a server that reads another can never
    // disagree on a request that passes.
    auto set = [&](std::optional<std::string>& slot) {
      std::string value = trimmed(field.value());
      slot = slot ? *slot + ", " + value : value;
    };
    if (is("mcp-protocol-version")) {
      set(m.protocol_version);
    } else if (is("mcp-method")) {
      set(m.method);
    } else if (is("mcp-name")) {
      set(m.name);
    } else if (name.size() > kParam.size() &&
               ::strncasecmp(name.data(), kParam.data(), kParam.size()) == 0) {
      std::string param(name.substr(kParam.size()));
      auto same = [&](const auto& p) {
        return p.first.size() == param.size() &&
               ::strncasecmp(p.first.data(), param.data(), param.size()) == 0;
      };
      auto earlier = std::find_if(m.params.begin(), m.params.end(), same);
      if (earlier != m.params.end())
        earlier->second += ", " + trimmed(field.value());
      else
        m.params.emplace_back(std::move(param), trimmed(field.value()));
    }
  }
  return m;
}

}  // namespace

Session::Session(asio::ip::tcp::socket socket, SessionContext& context, bool over_limit,
                 std::function<void(Session*)> forget)
    : socket_(std::move(socket)),
      context_(context),
      over_limit_(over_limit),
      forget_(std::move(forget)),
      deadline_(socket_.get_executor()),
      write_deadline_(socket_.get_executor()) {
  boost::system::error_code ec;
  auto peer = socket_.remote_endpoint(ec);
  remote_ = ec ? "unknown" : endpoint_text(peer);
  socket_.set_option(asio::ip::tcp::no_delay(true), ec);
}

Session::~Session() = default;

void Session::start() {
  // A connection that sends nothing gets the header timeout, not the idle one: an open
  // connection costs a slot of --max-connections.
  arm(context_.options.header_timeout);
  read_more();
}

void Session::read_more() {
  if (reading_ || state_ == State::kClosed) return;
  const bool parsing =
      state_ == State::kWaiting || state_ == State::kHeader || state_ == State::kBody;
  if (!parsing && state_ != State::kRefusing && input_.size() >= kReadAhead) return;
  reading_ = true;
  socket_.async_read_some(input_.prepare(kReadChunk),
                          [self = shared_from_this()](const boost::system::error_code& ec,
                                                      std::size_t n) { self->on_read(ec, n); });
}

void Session::on_read(const boost::system::error_code& ec, std::size_t n) {
  reading_ = false;
  if (state_ == State::kClosed) return;
  if (ec) {
    if (state_ == State::kPending) {
      // Closing while the call runs is the client cancelling it.
      client_gone("the client closed the connection");
    } else if (ec == asio::error::eof &&
               (state_ == State::kResponding || state_ == State::kRefusing) && !output_.empty()) {
      // The client has sent all it will (a half-close) but may still read: the answer
      // already queued is written first, then the connection closes (on_written).
      keep_alive_ = false;
    } else {
      close();  // a reset, or nothing left to write: nobody is left to answer
    }
    return;
  }
  input_.commit(n);
  if (state_ == State::kRefusing) {
    // Draining what the client still sends after a refusal, so that closing does not
    // reset the connection before it has read the refusal.
    input_.consume(input_.size());
  } else if (state_ == State::kWaiting || state_ == State::kHeader || state_ == State::kBody) {
    parse();
  }
  read_more();
}

void Session::parse() {
  if (state_ == State::kWaiting) {
    if (input_.size() == 0) return;
    state_ = State::kHeader;
    arm(context_.options.header_timeout);
    parser_.emplace();
    parser_->header_limit(
        static_cast<std::uint32_t>(std::min<std::size_t>(context_.options.max_header, UINT32_MAX)));
    parser_->body_limit(context_.options.max_body);
  }
  while (state_ == State::kHeader || state_ == State::kBody) {
    boost::system::error_code ec;
    const std::size_t used = parser_->put(input_.data(), ec);
    input_.consume(used);
    if (ec == bhttp::error::need_more) {
      // What the parser leaves unconsumed while it reads a body is a chunk-size line (with
      // its extensions) or the trailer, neither of which Beast bounds: a client that never
      // ends one would grow this buffer until the idle timeout. They get the header's bound.
      if (state_ == State::kBody && input_.size() > context_.options.max_header)
        refuse({400,
                "Bad Request: a chunk header or trailer exceeds " +
                    std::to_string(context_.options.max_header) + " bytes",
                {}});
      return;
    }
    if (ec) {
      Refusal r;
      if (ec == bhttp::error::header_limit) {
        r = {431,
             "Request Header Fields Too Large: the header exceeds " +
                 std::to_string(context_.options.max_header) + " bytes",
             {}};
      } else if (ec == bhttp::error::body_limit) {
        r = {413,
             "Payload Too Large: the body exceeds " + std::to_string(context_.options.max_body) +
                 " bytes",
             {}};
      } else {
        r = {400, "Bad Request: " + ec.message(), {}};
      }
      refuse(std::move(r));
      return;
    }
    if (state_ == State::kHeader && parser_->is_header_done()) {
      state_ = State::kBody;
      on_header();
      if (state_ != State::kBody) return;
      arm(context_.options.idle_timeout);
    }
    if (parser_->is_done()) {
      on_request();
      return;
    }
    if (used == 0) return;
  }
}

void Session::on_header() {
  const Request& header = parser_->get();
  if (answer_probe()) return;
  if (context_.options.probes_only) {
    refuse({404, "Not Found: this address serves /healthz, /readyz and /metrics", {}});
    return;
  }
  if (over_limit_) {
    refuse({503, "Service Unavailable: too many connections", {{"Retry-After", "1"}}});
    return;
  }
  if (auto refusal = check_request(header, context_.options, context_.loopback_bound)) {
    refuse(std::move(*refusal));
    return;
  }
  // The core pads the body with NULs before it parses it in place (jsonrpc/json_read):
  // room for them now, while the body is empty, saves a copy of the whole body later.
  if (auto length = parser_->content_length())
    parser_->get().body().reserve(static_cast<std::size_t>(*length) + 4);
  auto expect = header.find(bhttp::field::expect);
  // No 1xx to an HTTP/1.0 client (RFC 9110 §15.2).
  if (expect != header.end() && header.version() >= 11 &&
      ::strncasecmp(expect->value().data(), "100-continue", 12) == 0 && !parser_->is_done()) {
    queue("HTTP/1.1 100 Continue\r\n\r\n");
    flush();
  }
}

void Session::on_request() {
  deadline_.cancel();
  Request request = parser_->release();
  parser_.reset();
  state_ = State::kPending;
  first_request_ = false;
  keep_alive_ = request.keep_alive() && !context_.stopping;
  accept_ = acceptable(request);
  // An event stream is a chunked body, which an HTTP/1.0 client cannot read (RFC 9112 §6.1):
  // it gets the response alone, as a client that takes JSON only does.
  if (request.version() < 11) {
    accept_.sse = false;
    accept_.json = true;
  }
  sse_ = false;
  exchange_ = std::make_shared<ExchangeConnection>(
      std::static_pointer_cast<ResponseSink>(shared_from_this()));
  exchange_->remote = remote_;
  exchange_->mirrored = mirrored_headers(request);
  // A session of the initialize era: the request is served with what its initialize
  // negotiated (the client's capabilities among it). An id we do not know (never minted,
  // or forgotten) is 404: the client starts a new session with a new initialize. A request
  // of 2026-07-28 (which has no sessions) keeps being served statelessly, whatever it says.
  const auto& version = exchange_->mirrored->protocol_version;
  std::optional<std::string> session_id;  // sent twice: one comma-joined value, unknown
  for (const auto& field : request)
    if (beast::iequals(field.name_string(), "Mcp-Session-Id"))
      session_id =
          session_id ? *session_id + ", " + trimmed(field.value()) : trimmed(field.value());
  if (session_id && context_.legacy_sessions &&
      (!version || !mcp::is_modern_version(trimmed(*version)))) {
    auto* known = context_.legacy_sessions->find(*session_id);
    if (!known) {
      exchange_.reset();
      const std::string shown =
          session_id->size() > 64 ? session_id->substr(0, 64) + "..." : *session_id;
      refuse({404, "Not Found: no session " + shown + " here (it ended, or never began)", {}});
      return;
    }
    exchange_->join(context_.legacy_sessions, *session_id, *known);
    exchange_->hears_requests = accept_.sse;
  }
  auto exchange = exchange_;  // handle() may answer (and so reset exchange_) before it returns
  const mcp::Handled handled = context_.core.handle(exchange, std::move(request.body()));
  if (state_ == State::kPending && exchange_ == exchange && handled != mcp::Handled::kPending)
    respond_accepted();
  // While the call runs the socket stays watched: an EOF is the client cancelling.
  read_more();
}

void Session::respond_accepted() {
  // A notification (or a message that gets no answer): accepted, nothing to say.
  exchange_.reset();
  state_ = State::kResponding;
  queue(response_head(202, "", 0, keep_alive_));
  flush();
}

int Session::deliver(ExchangeConnection& from, std::string line, const mcp::Outgoing& what) {
  if (state_ != State::kPending || exchange_.get() != &from) return 0;
  if (what.kind != mcp::Outgoing::Kind::kResponse) {
    if (!accept_.sse) return 0;  // the client takes JSON only: it cannot hear notifications
    if (output_bytes_ > context_.options.max_buffered) {
      client_gone("the client is not reading its event stream");
      return 0;
    }
    if (!sse_) {
      sse_ = true;
      queue(sse_head(keep_alive_));
    }
    queue(sse_event_chunk(line));
    flush();
    return 200;
  }
  const int status = status_for(what);
  HeaderList extra;
  if (auto& legacy = from.legacy; legacy && context_.legacy_sessions && status == 200 &&
                                  !what.error_code && from.session_id.empty() &&
                                  legacy->from_initialize) {
    // initialize succeeded: its session goes under a new id, which the client sends back
    // on every request of the session.
    extra.emplace_back("Mcp-Session-Id", context_.legacy_sessions->open(*legacy));
  } else if (from.changed_level()) {
    // logging/setLevel changes the session for its next requests.
    if (auto* kept = context_.legacy_sessions->find(from.session_id))
      kept->log_level = legacy->log_level;
  }
  exchange_.reset();
  state_ = State::kResponding;
  if (!sse_ && !accept_.json && status == 200) {
    sse_ = true;  // the client takes SSE only
    queue(sse_head(keep_alive_, extra));
  }
  if (sse_) {
    queue(sse_event_chunk(line));
    queue(std::string(last_chunk()));
  } else {
    queue(response_head(status, "application/json", line.size(), keep_alive_, extra));
    queue(std::move(line));
  }
  flush();
  return sse_ ? 200 : status;
}

// The probes of a load balancer or an orchestrator and the metrics scrape, off the MCP
// endpoint and its rules (no Host, Origin or MCP headers asked for, no audit line): GET or
// HEAD /healthz is 200 while the process serves; /readyz is 200 while it takes new requests
// and 503 once it is stopping; /metrics (when the server has it) wants the bearer token if
// one is set. The connection closes after the answer (a probe opens one per check). A
// --http-path naming one of them keeps its MCP meaning.
bool Session::answer_probe() {
  const Request& header = parser_->get();
  const std::string_view target(header.target().data(), header.target().size());
  const std::string_view path = target.substr(0, target.find('?'));
  const bool metrics = path == "/metrics" && context_.metrics;
  if ((path == context_.options.path && !context_.options.probes_only) ||
      (path != "/healthz" && path != "/readyz" && !metrics))
    return false;
  const bool head = header.method() == bhttp::verb::head;
  if (!head && header.method() != bhttp::verb::get) return false;
  if (metrics && context_.options.auth_token) {
    auto auth = header.find(bhttp::field::authorization);
    if (auth == header.end() ||
        !bearer_matches(std::string_view(auth->value().data(), auth->value().size()),
                        *context_.options.auth_token)) {
      refuse(
          {401, "Unauthorized: /metrics wants the bearer token", {{"WWW-Authenticate", "Bearer"}}});
      return true;
    }
  }
  int status = 200;
  std::string body = "ok\n", type = "text/plain; charset=utf-8";
  if (metrics) {
    body = context_.metrics();
    type = "text/plain; version=0.0.4; charset=utf-8";
  } else if (path == "/readyz" && context_.stopping) {
    status = 503;
    body = "stopping\n";
  }
  deadline_.cancel();
  parser_.reset();
  state_ = State::kRefusing;  // answered: what the client sends next is drained, then closed
  queue(response_head(status, type, body.size(), false, {{"Cache-Control", "no-store"}}));
  if (!head) queue(std::move(body));
  flush();
  return true;
}

void Session::refuse(Refusal refusal) {
  deadline_.cancel();
  const std::string method = parser_ && parser_->is_header_done()
                                 ? trimmed(parser_->get()[std::string_view("Mcp-Method")])
                                 : std::string();
  const std::string version =
      parser_ && parser_->is_header_done()
          ? trimmed(parser_->get()[std::string_view("MCP-Protocol-Version")])
          : std::string();
  parser_.reset();
  state_ = State::kRefusing;
  std::string body = refusal_body(refusal.code, refusal.message);
  queue(response_head(refusal.status, "application/json", body.size(), false, refusal.headers));
  queue(std::move(body));
  flush();
  context_.log.debug("refused a request from " + remote_ + ": " + std::to_string(refusal.status) +
                     " " + refusal.message);
  if (context_.audit) {
    mcp::AuditRecord r;
    r.method = method;
    r.protocol_version = version;
    r.outcome = "refused";
    r.error_code = refusal.code;
    r.error_message = refusal.message;
    r.remote = remote_;
    r.http_status = refusal.status;
    context_.audit(r);
  }
}

void Session::queue(std::string bytes) {
  output_bytes_ += bytes.size();
  output_.push_back(std::move(bytes));
}

void Session::flush() {
  if (writing_ > 0 || output_.empty() || state_ == State::kClosed) return;
  std::vector<asio::const_buffer> buffers;
  for (const auto& item : output_) buffers.emplace_back(asio::buffer(item));
  writing_ = output_.size();
  // A client that takes nothing for this long is gone.
  write_deadline_.expires_after(context_.options.idle_timeout);
  write_deadline_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->client_gone("the client stopped reading");
  });
  asio::async_write(socket_, buffers,
                    [self = shared_from_this()](const boost::system::error_code& ec,
                                                std::size_t n) { self->on_written(ec, n); });
}

void Session::on_written(const boost::system::error_code& ec, std::size_t) {
  write_deadline_.cancel();
  for (; writing_ > 0; --writing_) {
    output_bytes_ -= output_.front().size();
    output_.pop_front();
  }
  if (state_ == State::kClosed) return;
  if (ec) {
    client_gone("writing to the client failed");
    return;
  }
  if (!output_.empty()) {
    flush();
    return;
  }
  if (state_ == State::kRefusing) {
    // The refusal is out: end our side and drain theirs until they close, within the
    // header timeout.
    boost::system::error_code ignored;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
    arm(context_.options.header_timeout);
    read_more();
    return;
  }
  if (state_ == State::kResponding) next_request();
}

void Session::next_request() {
  if (!keep_alive_ || context_.stopping) {
    close();
    return;
  }
  state_ = State::kWaiting;
  arm(context_.options.idle_timeout);
  parse();
  read_more();
}

void Session::stop_when_done() {
  keep_alive_ = false;
  // A request that has begun to arrive is read and answered, then the connection closes:
  // closing now would drop it unanswered, and neither its client nor a balancer in front
  // could tell whether it ran. Its header (or idle) deadline still bounds the reading.
  if (state_ == State::kHeader || state_ == State::kBody) return;
  if (state_ != State::kWaiting) return;
  // Bytes already in the kernel's buffer are such a request too; so are bytes the pending
  // read has already taken (Asio reads at once when it can, and delivers later). Cancelling
  // the read settles it: bytes it took are delivered and parsed as a request, and a read
  // that found nothing ends with operation_aborted, on which the connection closes.
  boost::system::error_code ec;
  if (socket_.available(ec) > 0 && !ec) return;
  if (reading_) {
    socket_.cancel(ec);
    return;
  }
  close();
}

void Session::close_unless_answering() {
  if (state_ == State::kWaiting || state_ == State::kHeader || state_ == State::kBody) close();
}

void Session::close_now() { client_gone("the server is stopping"); }

void Session::arm(std::chrono::milliseconds timeout) {
  deadline_.expires_after(timeout);
  deadline_.async_wait([weak = weak_from_this()](const boost::system::error_code& ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->on_deadline();
  });
}

void Session::on_deadline() {
  switch (state_) {
    case State::kWaiting:
      context_.log.debug("closing an idle connection from " + remote_);
      break;
    case State::kHeader:
    case State::kBody:
      context_.log.info("closing a connection from " + remote_ +
                        ": its request did not arrive in time");
      break;
    case State::kRefusing:
      break;
    default:
      return;  // a request in flight has no deadline
  }
  close();
}

void Session::client_gone(const char* why) {
  if (state_ == State::kClosed) return;
  if (state_ == State::kPending && exchange_) {
    context_.log.info(std::string("request from ") + remote_ + " abandoned: " + why);
    auto exchange = std::move(exchange_);
    state_ = State::kClosed;  // nothing more is delivered
    context_.core.disconnected(exchange);
  }
  close();
}

void Session::close() {
  if (state_ == State::kClosed && !socket_.is_open()) return;
  state_ = State::kClosed;
  exchange_.reset();
  deadline_.cancel();
  write_deadline_.cancel();
  boost::system::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  if (forget_) {
    auto forget = std::move(forget_);
    forget(this);
  }
}

}  // namespace mcpsh::http
