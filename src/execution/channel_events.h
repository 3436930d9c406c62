#pragma once
// The tool side channel (fd 4), as typed events. A tool's helpers (mcp_progress, mcp_log)
// write one line per event; the bytes are the tool's, so nothing here trusts them: a line
// that is not a well-formed event becomes a Malformed event naming why, never an error of
// the host. Text fields hold the tool's bytes as given (not yet UTF-8-repaired: the JSON
// writer repairs whatever it serializes).
//
// Wire format, one line each, fields separated by TAB:
//   progress <TAB> PROGRESS <TAB> TOTAL <TAB> MESSAGE     (TOTAL may be empty)
//   log <TAB> LEVEL <TAB> MESSAGE
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace mcpsh::execution {

struct ProgressEvent {
  double progress = 0;  // finite
  std::optional<double> total;
  std::string message;
};

struct LogEvent {
  std::string level;  // as the tool gave it ("" = info); the protocol unit maps it
  std::string message;
};

struct MalformedEvent {
  std::string why;  // for the host's log, e.g. "mcp_progress needs a number, got \"x\""
};

using ChannelEvent = std::variant<ProgressEvent, LogEvent, MalformedEvent>;

// nullopt for an empty line or an unknown event kind (ignored: newer helpers may write
// kinds an older host does not know).
std::optional<ChannelEvent> parse_channel_line(std::string_view line);

}  // namespace mcpsh::execution
