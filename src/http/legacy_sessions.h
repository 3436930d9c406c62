#pragma once
// Sessions of the `initialize` era over HTTP (MCP 2025-11-25 Streamable HTTP, "Session
// Management"): what a client's initialize negotiated, kept under the Mcp-Session-Id the
// host minted for it, so that its later requests are served with the capabilities it
// declared (the host may then ask it: elicitation, sampling, roots) and its answers,
// POSTed on other connections, reach the question (ProtocolCore::on_response matches them
// by session).
//
// Contract:
//  - Single-threaded (the io_context's).
//  - Ids are 128 random bits as 32 hex digits (visible ASCII, unguessable).
//  - Bounded: at most `max` sessions; one idle for `idle` is gone. A full store forgets the
//    session used longest ago. A forgotten id is unknown: the transport answers 404, and
//    the client initializes again (as the specification says). A session with a request
//    still running (pinned: a call may be waiting for its answer) is neither forgotten nor
//    expired; there are never more of those than connections, far fewer than `max`.
//  - What a session keeps is small: the client's name is cut to kMaxClientName bytes.
//  - A session lives in one instance: behind a load balancer, sessions of this era need
//    sticky routing (README "Scale out").
#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "mcp/connection.h"

namespace mcpsh::http {

class LegacySessions {
 public:
  using Clock = std::chrono::steady_clock;
  explicit LegacySessions(std::size_t max = 10000, Clock::duration idle = std::chrono::hours(1));

  static constexpr std::size_t kMaxClientName = 256;

  // A new session for what initialize negotiated; its id.
  std::string open(const mcp::LegacySession& negotiated);
  // The session of `id`, marked used now; nullptr when unknown or expired.
  mcp::LegacySession* find(const std::string& id);
  // While a request of the session runs (pin), the session stays (unpin when it ends).
  void pin(const std::string& id);
  void unpin(const std::string& id);
  std::size_t size() const { return sessions_.size(); }

 private:
  struct Entry {
    mcp::LegacySession session;
    Clock::time_point used;
    int running = 0;  // pins
  };
  void expire(Clock::time_point now);

  std::size_t max_;
  Clock::duration idle_;
  std::map<std::string, Entry> sessions_;
};

}  // namespace mcpsh::http
