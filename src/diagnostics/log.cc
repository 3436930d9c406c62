#include "diagnostics/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <mutex>
#include <stdexcept>

#include "transport/write_all.h"

namespace mcpsh::diagnostics {

std::optional<Level> parse_level(std::string_view name) {
  if (name == "debug") return Level::kDebug;
  if (name == "info") return Level::kInfo;
  if (name == "warning" || name == "warn") return Level::kWarning;
  if (name == "error") return Level::kError;
  if (name == "off" || name == "none") return Level::kOff;
  return std::nullopt;
}

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char stamp[64];
  std::snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return stamp;
}

struct Log::Sink {
  int fd = 2;
  bool owned = false;
  std::mutex mutex;
};

Log::Log(const std::string& path, Level threshold)
    : sink_(std::make_unique<Sink>()), threshold_(threshold) {
  if (!path.empty()) {
    sink_->fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (sink_->fd < 0)
      throw std::runtime_error("cannot open log file " + path + ": " + std::strerror(errno));
    sink_->owned = true;
  }
}

Log::~Log() {
  if (sink_->owned) ::close(sink_->fd);
}

void Log::write(Level level, std::string_view text) {
  if (!enabled(level)) return;
  static constexpr const char* kNames[] = {"debug", "info", "warning", "error"};
  std::string line = utc_timestamp() + " mcp-shell-host " + kNames[static_cast<int>(level)] + ": ";
  for (char c : text) line += (c == '\n') ? ' ' : c;
  line += '\n';
  std::lock_guard lock(sink_->mutex);
  transport::write_all(sink_->fd, line);  // a failure has nowhere left to be reported
}

}  // namespace mcpsh::diagnostics
