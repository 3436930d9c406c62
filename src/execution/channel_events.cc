#include "execution/channel_events.h"

#include <charconv>
#include <cmath>
#include <utility>

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

std::string quoted(std::string_view text) {
  return "\"" + std::string(text.substr(0, 64)) + (text.size() > 64 ? "...\"" : "\"");
}

// Standard base64 with padding, as `base64 -w0` writes it; empty is valid (an empty file).
bool is_base64(std::string_view s) {
  if (s.size() % 4 != 0) return false;
  std::size_t padding = 0;
  if (!s.empty() && s.back() == '=') padding = s.size() >= 2 && s[s.size() - 2] == '=' ? 2 : 1;
  for (std::size_t i = 0; i < s.size() - padding; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
          c == '/'))
      return false;
  }
  return true;
}

// A MIME type as `type/subtype` with no spaces: what a block's mimeType claims is the
// tool's business, but an empty or shapeless one is a mistake worth naming.
bool looks_like_mime(std::string_view m) {
  auto slash = m.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < m.size() &&
         m.find_first_of(" \t") == std::string_view::npos;
}

std::optional<ContentKind> content_kind(std::string_view name) {
  if (name == "image") return ContentKind::kImage;
  if (name == "audio") return ContentKind::kAudio;
  if (name == "resource") return ContentKind::kResource;
  if (name == "resource_link") return ContentKind::kResourceLink;
  if (name == "text") return ContentKind::kText;
  return std::nullopt;
}

// The escapes of an ask line's fields: \\, \n, \t; any other backslash stays as it is.
std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char next = s[i + 1];
      if (next == '\\' || next == 'n' || next == 't') {
        out += next == 'n' ? '\n' : next == 't' ? '\t' : '\\';
        ++i;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

// The helper's name for a kind, as a tool author knows it.
std::string helper_name(ContentKind kind) {
  return kind == ContentKind::kText ? "mcp_message" : std::string("mcp_") + content_kind_name(kind);
}

ChannelEvent parse_content(ContentKind kind, std::string line) {
  ContentEvent event;
  event.kind = kind;
  const std::string helper = helper_name(kind);
  std::string_view annotations;
  std::size_t payload_at = std::string::npos;  // where the base64 starts in `line`
  if (kind == ContentKind::kResourceLink) {
    auto f = split_tabs(line, 6);
    if (f.size() != 6) return MalformedEvent{helper + ": malformed side-channel line"};
    event.uri = std::string(f[1]);
    event.name = f[2].empty() ? event.uri : std::string(f[2]);
    event.mime = std::string(f[3]);
    annotations = f[4];
    event.description = std::string(f[5]);
    if (event.uri.empty()) return MalformedEvent{helper + " needs a URI"};
  } else if (kind == ContentKind::kResource) {
    auto f = split_tabs(line, 5);
    if (f.size() != 5) return MalformedEvent{helper + ": malformed side-channel line"};
    event.uri = std::string(f[1]);
    event.mime = std::string(f[2]);
    annotations = f[3];
    payload_at = static_cast<std::size_t>(f[4].data() - line.data());
    if (event.uri.empty()) return MalformedEvent{helper + " needs a URI"};
  } else if (kind == ContentKind::kText) {
    auto f = split_tabs(line, 3);
    if (f.size() != 3) return MalformedEvent{helper + ": malformed side-channel line"};
    annotations = f[1];
    payload_at = static_cast<std::size_t>(f[2].data() - line.data());
  } else {
    auto f = split_tabs(line, 4);
    if (f.size() != 4) return MalformedEvent{helper + ": malformed side-channel line"};
    event.mime = std::string(f[1]);
    annotations = f[2];
    payload_at = static_cast<std::size_t>(f[3].data() - line.data());
    if (event.mime.empty())
      return MalformedEvent{helper + ": no MIME type given and none could be derived"};
  }
  if (!event.mime.empty() && !looks_like_mime(event.mime))
    return MalformedEvent{helper + ": " + quoted(event.mime) + " is not a MIME type"};
  if (!annotations.empty())
    event.annotations = parse_annotations(annotations, event.annotations_problem);
  if (payload_at != std::string::npos) {
    if (!is_base64(std::string_view(line).substr(payload_at)))
      return MalformedEvent{helper + ": the payload is not base64"};
    // The payload is the line's last field: moved, the prefix shifted out in place.
    line.erase(0, payload_at);
    event.base64 = std::make_shared<const std::string>(std::move(line));
  }
  return event;
}

}  // namespace

const char* content_kind_name(ContentKind kind) {
  switch (kind) {
    case ContentKind::kImage:
      return "image";
    case ContentKind::kAudio:
      return "audio";
    case ContentKind::kResource:
      return "resource";
    case ContentKind::kResourceLink:
      return "resource_link";
    case ContentKind::kText:
      return "text";
  }
  return "?";
}

std::uint64_t ContentEvent::decoded_size() const {
  if (!base64 || base64->empty()) return 0;
  const std::string& b = *base64;
  std::uint64_t padding = b.back() == '=' ? (b[b.size() - 2] == '=' ? 2 : 1) : 0;
  return b.size() / 4 * 3 - padding;
}

bool is_content_line(std::string_view line) {
  auto tab = line.find('\t');
  if (tab == std::string_view::npos) return false;
  // A question is passed whole or not at all (a prompt may hold a file): cut, it would ask
  // something else; dropped after chatty logs, the call would end with no question.
  return line.substr(0, tab) == "ask" || content_kind(line.substr(0, tab)).has_value();
}

ContentAnnotations parse_annotations(std::string_view text, std::string& problem) {
  ContentAnnotations a;
  while (!text.empty()) {
    auto semi = text.find(';');
    std::string_view pair = text.substr(0, semi);
    text = semi == std::string_view::npos ? std::string_view() : text.substr(semi + 1);
    if (pair.empty()) continue;
    auto eq = pair.find('=');
    std::string_view key = pair.substr(0, eq);
    std::string_view value =
        eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
    if (key == "audience") {
      a.audience.clear();
      while (!value.empty()) {
        auto comma = value.find(',');
        std::string_view role = value.substr(0, comma);
        value = comma == std::string_view::npos ? std::string_view() : value.substr(comma + 1);
        if (role != "user" && role != "assistant") {
          problem = "audience must be user or assistant, got " + quoted(role);
          return {};
        }
        a.audience.emplace_back(role);
      }
      if (a.audience.empty()) {
        problem = "audience needs user, assistant or both";
        return {};
      }
    } else if (key == "priority") {
      auto p = parse_number(value);
      if (!p || *p < 0 || *p > 1) {
        problem = "priority must be a number from 0 to 1, got " + quoted(value);
        return {};
      }
      a.priority = p;
    } else if (key == "role") {
      if (value != "user" && value != "assistant") {
        problem = "role must be user or assistant, got " + quoted(value);
        return {};
      }
      a.role = std::string(value);
    } else if (key == "lastModified") {
      if (value.empty()) {
        problem = "lastModified needs an ISO 8601 time, e.g. 2025-01-12T15:00:58Z";
        return {};
      }
      a.last_modified = std::string(value);
    } else {
      problem = "unknown annotation " + quoted(key) + " (audience, priority, lastModified, role)";
      return {};
    }
  }
  return a;
}

std::optional<ChannelEvent> parse_channel_line(std::string_view line) {
  return take_channel_line(std::string(line));
}

std::optional<ChannelEvent> take_channel_line(std::string line) {
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
  if (fields[0] == "task") {
    fields = split_tabs(line, 2);
    return TaskEvent{fields.size() >= 2 ? std::string(fields[1]) : std::string()};
  }
  if (fields[0] == "too_large") {
    fields = split_tabs(line, 3);
    OversizedContentEvent event{fields.size() >= 3 ? std::string(fields[2].substr(0, 32)) : "", 0};
    if (fields.size() >= 2) {
      auto n = parse_number(fields[1]);
      if (n && *n >= 0) event.bytes = static_cast<std::uint64_t>(*n);
    }
    return event;
  }
  if (fields[0] == "ask") {
    fields = split_tabs(line, 6);
    AskEvent event;
    std::string* parts[] = {&event.key, &event.kind, &event.first, &event.second, &event.third};
    for (std::size_t i = 1; i < fields.size(); ++i) *parts[i - 1] = unescape(fields[i]);
    return event;
  }
  if (auto kind = content_kind(fields[0])) return parse_content(*kind, std::move(line));
  return std::nullopt;
}

}  // namespace mcpsh::execution
