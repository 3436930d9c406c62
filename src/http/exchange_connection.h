#pragma once
// One HTTP request as the protocol core sees it: a Connection whose lines go back to the
// session that read the request. The session decides what they become on the wire (a
// JSON body, or SSE events ending with the response).
//
// Contract:
//  - Created by a session per request; held by the core (shared_ptr) while its call runs,
//    so it may outlive the session: it then drops what it is given.
//  - send() on the core's thread (the io_context's).
#include <memory>
#include <string>

#include "http/legacy_sessions.h"
#include "mcp/connection.h"

namespace mcpsh::http {

class ExchangeConnection;

// Where an exchange's lines go (implemented by the session).
class ResponseSink {
 public:
  virtual ~ResponseSink() = default;
  // Returns the HTTP status the line went out with (0 if it was dropped).
  virtual int deliver(ExchangeConnection& from, std::string line, const mcp::Outgoing& what) = 0;
};

class ExchangeConnection : public mcp::Connection {
 public:
  explicit ExchangeConnection(std::weak_ptr<ResponseSink> sink) : sink_(std::move(sink)) {}
  ~ExchangeConnection() override {
    if (auto sessions = sessions_.lock()) sessions->unpin(session_id);
  }
  ExchangeConnection(const ExchangeConnection&) = delete;
  ExchangeConnection& operator=(const ExchangeConnection&) = delete;

  // Serves this request in the session `id` (known to `sessions`): its negotiated state,
  // and the session stays while this request lives (a call may wait for its answer).
  void join(const std::shared_ptr<LegacySessions>& sessions, const std::string& id,
            const mcp::LegacySession& negotiated) {
    sessions_ = sessions;
    session_id = id;
    legacy = negotiated;
    level_at_start_ = negotiated.log_level;
    sessions->pin(id);
  }
  // logging/setLevel changed the session (and nothing else of it is written back: another
  // request of the session may have changed it meanwhile).
  bool changed_level() const { return legacy && legacy->log_level != level_at_start_; }
  void send(std::string line, const mcp::Outgoing& what) override {
    if (auto sink = sink_.lock()) {
      const int status = sink->deliver(*this, std::move(line), what);
      if (status != 0) status_ = status;
    }
  }
  int last_status() const override { return status_; }

 private:
  std::weak_ptr<ResponseSink> sink_;
  int status_ = 0;
  std::weak_ptr<LegacySessions> sessions_;
  std::optional<mcp::LogLevel> level_at_start_;
};

}  // namespace mcpsh::http
