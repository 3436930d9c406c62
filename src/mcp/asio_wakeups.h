#pragma once
// WakeupSource on an Asio steady_timer. Single-threaded: the io_context's thread.
// Destroying it cancels a pending wake (its function is then never called).
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include "mcp/wakeups.h"

namespace mcpsh::mcp {

class AsioWakeups : public WakeupSource {
 public:
  explicit AsioWakeups(boost::asio::io_context& io) : timer_(io) {}
  Clock::time_point now() const override { return Clock::now(); }
  void wake_at(Clock::time_point when, std::function<void()> wake) override;

 private:
  boost::asio::steady_timer timer_;
};

}  // namespace mcpsh::mcp
