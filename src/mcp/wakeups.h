#pragma once
// Time, as the call scheduler needs it for heartbeats: "now" and "wake me at". The real
// one is an Asio timer (AsioWakeups); tests drive a manual one without sleeping.
#include <chrono>
#include <functional>

namespace mcpsh::mcp {

using Clock = std::chrono::steady_clock;

class WakeupSource {
 public:
  virtual ~WakeupSource() = default;
  virtual Clock::time_point now() const = 0;
  // Calls `wake` once, on the core's thread, at or after `when`. A later call replaces an
  // earlier request that has not fired yet. `wake` must itself guard against outliving
  // whatever it refers to (it may run after its requester is gone).
  virtual void wake_at(Clock::time_point when, std::function<void()> wake) = 0;
};

}  // namespace mcpsh::mcp
