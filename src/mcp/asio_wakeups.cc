#include "mcp/asio_wakeups.h"

namespace mcpsh::mcp {

void AsioWakeups::wake_at(Clock::time_point when, std::function<void()> wake) {
  timer_.expires_at(when);  // cancels the previous wait: its handler sees operation_aborted
  timer_.async_wait([wake = std::move(wake)](const boost::system::error_code& ec) {
    if (!ec) wake();
  });
}

}  // namespace mcpsh::mcp
