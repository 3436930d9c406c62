#include "http/legacy_sessions.h"

#include <cstdint>
#include <cstdio>
#include <random>

namespace mcpsh::http {

namespace {

// 128 bits from the kernel's random source (std::random_device is getrandom(2) or the
// CPU's RDRAND/RDSEED on glibc), as hex.
std::string random_id() {
  static std::random_device source;
  char text[33];
  for (int i = 0; i < 4; ++i)
    std::snprintf(text + 8 * i, 9, "%08x", static_cast<std::uint32_t>(source()));
  return std::string(text, 32);
}

}  // namespace

LegacySessions::LegacySessions(std::size_t max, Clock::duration idle) : max_(max), idle_(idle) {}

std::string LegacySessions::open(const mcp::LegacySession& negotiated) {
  const auto now = Clock::now();
  expire(now);
  if (sessions_.size() >= max_) {
    auto oldest = sessions_.end();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it)
      if (it->second.running == 0 &&
          (oldest == sessions_.end() || it->second.used < oldest->second.used))
        oldest = it;
    if (oldest != sessions_.end()) sessions_.erase(oldest);
  }
  std::string id;
  do id = random_id();
  while (sessions_.count(id));
  Entry entry{negotiated, now};
  if (entry.session.client_name.size() > kMaxClientName)
    entry.session.client_name.resize(kMaxClientName);
  sessions_.emplace(id, std::move(entry));
  return id;
}

mcp::LegacySession* LegacySessions::find(const std::string& id) {
  const auto now = Clock::now();
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return nullptr;
  if (it->second.running == 0 && now - it->second.used > idle_) {
    sessions_.erase(it);
    return nullptr;
  }
  it->second.used = now;
  return &it->second.session;
}

void LegacySessions::pin(const std::string& id) {
  if (auto it = sessions_.find(id); it != sessions_.end()) ++it->second.running;
}

void LegacySessions::unpin(const std::string& id) {
  if (auto it = sessions_.find(id); it != sessions_.end() && it->second.running > 0) {
    --it->second.running;
    it->second.used = Clock::now();
  }
}

void LegacySessions::expire(Clock::time_point now) {
  for (auto it = sessions_.begin(); it != sessions_.end();)
    it = it->second.running == 0 && now - it->second.used > idle_ ? sessions_.erase(it)
                                                                  : std::next(it);
}

}  // namespace mcpsh::http
