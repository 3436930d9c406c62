#pragma once
// The one place the line target touches the protocol unit's API. The fuzz target drives a
// ProtocolUnderTest; when the core's constructor or its entry points change, only this
// header and protocol_adapter.cc follow.
//
// One ProtocolUnderTest serves many inputs: what does not depend on the input (the catalog's
// compiled schemas, the rendered tools list, the core itself) is built once, and each input
// is one session on a fresh connection (open() ... close()), as a transport with many
// clients would bring them. The core's per-connection state (the legacy era, its log
// level) lives on the connection; its calls must all have ended by close().
//
// Contract:
//  - Between open(send, audit) and close(), every line the protocol writes reaches `send`
//    (whole lines, without '\n'), and the audit log's line for every request it answered
//    or dropped reaches `audit` (without '\n').
//  - line()/oversized() hand over one framed input; input_closed() is stdin's EOF
//    (open subscriptions/listen streams are answered then, as the host does);
//    stop_all() ends every call still running, as the host does on shutdown: once the
//    io_context has drained after it, in_flight() must be 0.
//  - close() returns false when something still holds the session's connection (a call
//    or callback that outlived the session): state that would leak into the next input.
//  - Single-threaded, on the io_context's thread. `catalog`, `runner` and `io` outlive
//    this object.
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "discovery/catalog.h"
#include "execution/call_runner.h"
#include "execution/launch_spec.h"

namespace boost::asio {
class io_context;
}

namespace mcpsh::fuzz {

class ProtocolUnderTest {
 public:
  using Send = std::function<void(std::string)>;
  ProtocolUnderTest(boost::asio::io_context& io, const discovery::Catalog& catalog,
                    execution::CallRunner& runner, const execution::Limits& limits);
  ~ProtocolUnderTest();

  void open(Send send, Send audit);
  bool close();

  void line(std::string_view line);
  void oversized(std::size_t size);
  void input_closed();
  void stop_all();
  std::size_t in_flight() const;
  std::size_t queued() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpsh::fuzz
