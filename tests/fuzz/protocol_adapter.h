#pragma once
// The one place the line target touches the protocol unit's API. The fuzz target drives a
// ProtocolUnderTest; when the server's constructor or its entry points change, only this
// header and protocol_adapter.cc follow.
//
// Contract:
//  - Every line the protocol writes reaches `send` (whole lines, without '\n').
//  - line()/oversized() hand over one framed input; input_closed() is stdin's EOF;
//    stop_all() ends every call still running, as the host does on shutdown: once the
//    io_context has drained after it, in_flight() must be 0.
//  - Single-threaded, on the io_context's thread. `runner` and `io` outlive this object.
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
                    execution::CallRunner& runner, const execution::Limits& limits, Send send);
  ~ProtocolUnderTest();

  void line(std::string_view line);
  void oversized(std::size_t size);
  void input_closed();
  void stop_all();
  std::size_t in_flight() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mcpsh::fuzz
