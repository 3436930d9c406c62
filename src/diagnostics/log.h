#pragma once
// The host's diagnostic log: stderr by default, or a file. One line per entry, never on
// stdout (stdout carries only protocol messages). Thread-safe.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace mcpsh::diagnostics {

enum class Level { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kOff = 4 };

std::optional<Level> parse_level(std::string_view name);

// The current time as ISO 8601 UTC with milliseconds ("2026-11-30T23:36:35.123Z"), as the
// diagnostic and audit logs write it.
std::string utc_timestamp();

class Log {
 public:
  // path empty => stderr. Throws std::runtime_error if the file cannot be opened.
  Log(const std::string& path, Level threshold);
  ~Log();
  void write(Level level, std::string_view text);
  void debug(std::string_view t) { write(Level::kDebug, t); }
  void info(std::string_view t) { write(Level::kInfo, t); }
  void warning(std::string_view t) { write(Level::kWarning, t); }
  void error(std::string_view t) { write(Level::kError, t); }
  bool enabled(Level level) const { return level >= threshold_; }

 private:
  struct Sink;
  std::unique_ptr<Sink> sink_;
  Level threshold_;
};

}  // namespace mcpsh::diagnostics
