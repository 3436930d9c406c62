#include "execution/channel_events.h"

#include <charconv>
#include <cmath>
#include <vector>

namespace mcpsh::execution {

namespace {

// At most `max_fields` fields; the last one keeps any further tabs.
std::vector<std::string_view> split_tabs(std::string_view line, std::size_t max_fields) {
  std::vector<std::string_view> fields;
  while (fields.size() + 1 < max_fields) {
    auto tab = line.find('\t');
    if (tab == std::string_view::npos) break;
    fields.push_back(line.substr(0, tab));
    line.remove_prefix(tab + 1);
  }
  fields.push_back(line);
  return fields;
}

// A plain decimal number, the whole field: no spaces, no sign '+', no hexadecimal, no
// infinity or NaN, and the same in every locale (strtod would read "1,5" as 1 in some).
std::optional<double> parse_number(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  double v = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

}  // namespace

std::optional<ChannelEvent> parse_channel_line(std::string_view line) {
  if (line.empty()) return std::nullopt;
  auto fields = split_tabs(line, 4);
  if (fields[0] == "progress") {
    std::string_view value = fields.size() >= 2 ? fields[1] : std::string_view();
    auto progress = parse_number(value);
    if (!progress)
      return MalformedEvent{"mcp_progress needs a number, got \"" +
                            std::string(value.substr(0, 64)) + "\""};
    ProgressEvent event;
    event.progress = *progress;
    if (fields.size() >= 3) event.total = parse_number(fields[2]);
    if (fields.size() >= 4) event.message = std::string(fields[3]);
    return event;
  }
  if (fields[0] == "log") {
    fields = split_tabs(line, 3);
    LogEvent event;
    if (fields.size() >= 2) event.level = std::string(fields[1]);
    if (fields.size() >= 3) event.message = std::string(fields[2]);
    return event;
  }
  return std::nullopt;
}

}  // namespace mcpsh::execution
