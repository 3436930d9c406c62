#include "http/origin_policy.h"

#include <algorithm>
#include <cctype>

namespace mcpsh::http {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "host:port", "[v6]:port", "host" -> the host part ("[v6]" keeps its brackets).
std::string_view strip_port(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    auto close = authority.find(']');
    return close == std::string_view::npos ? std::string_view{} : authority.substr(0, close + 1);
  }
  auto colon = authority.find(':');
  return colon == std::string_view::npos ? authority : authority.substr(0, colon);
}

}  // namespace

std::string origin_key(std::string_view origin) {
  origin = trim(origin);
  auto sep = origin.find("://");
  if (sep == std::string_view::npos || sep == 0) return "";
  std::string_view scheme = origin.substr(0, sep);
  std::string_view rest = origin.substr(sep + 3);
  rest = rest.substr(0, rest.find('/'));
  // userinfo is not part of an origin; a browser never sends one, so refuse it.
  if (rest.find('@') != std::string_view::npos) return "";
  std::string_view host = strip_port(rest);
  if (host.empty()) return "";
  return lower(scheme) + "://" + lower(host);
}

namespace {
// The port an origin names ("" when it names none).
std::string_view origin_port(std::string_view origin) {
  origin = trim(origin);
  auto sep = origin.find("://");
  if (sep == std::string_view::npos) return {};
  std::string_view authority = origin.substr(sep + 3);
  authority = authority.substr(0, authority.find('/'));
  std::string_view host = strip_port(authority);
  std::string_view rest = authority.substr(host.size());
  return rest.size() > 1 && rest.front() == ':' ? rest.substr(1) : std::string_view{};
}
}  // namespace

bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed) {
  const std::string key = origin_key(origin);
  if (key.empty()) return false;
  return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) {
    if (origin_key(a) != key) return false;
    const std::string_view port = origin_port(a);
    return port.empty() || port == origin_port(origin);
  });
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

bool is_loopback_host(std::string_view host) {
  const std::string h = lower(host);
  if (h == "localhost" || h == "::1" || h == "[::1]") return true;
  // 127.0.0.0/8, written as a dotted quad.
  if (h.rfind("127.", 0) != 0) return false;
  int dots = 0;
  for (char c : h) {
    if (c == '.')
      ++dots;
    else if (!std::isdigit(static_cast<unsigned char>(c)))
      return false;
  }
  return dots == 3;
}

bool host_header_is_loopback(std::string_view host_header) {
  host_header = trim(host_header);
  std::string_view host = strip_port(host_header);
  if (host.empty()) return false;
  // Whatever follows the host must be ":digits" (or nothing).
  std::string_view port = host_header.substr(host.size());
  if (!port.empty()) {
    if (port.front() != ':' || port.size() == 1) return false;
    for (char c : port.substr(1))
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return is_loopback_host(host);
}

}  // namespace mcpsh::http
