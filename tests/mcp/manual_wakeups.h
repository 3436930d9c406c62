#pragma once
// A WakeupSource whose time moves only when the test says so: heartbeats without sleeping.
#include <functional>
#include <optional>

#include "mcp/wakeups.h"

namespace mcpsh::testing {

class ManualWakeups : public mcp::WakeupSource {
 public:
  mcp::Clock::time_point now() const override { return now_; }
  void wake_at(mcp::Clock::time_point when, std::function<void()> wake) override {
    when_ = when;
    wake_ = std::move(wake);
  }
  // Moves time forward by `d`, firing the pending wake if it has become due.
  void advance(std::chrono::milliseconds d) {
    now_ += d;
    if (when_ && *when_ <= now_) {
      when_.reset();
      auto wake = std::move(wake_);
      wake();
    }
  }
  bool armed() const { return when_.has_value(); }

 private:
  mcp::Clock::time_point now_{std::chrono::hours(1)};
  std::optional<mcp::Clock::time_point> when_;
  std::function<void()> wake_;
};

}  // namespace mcpsh::testing
