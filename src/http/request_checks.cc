#include "http/request_checks.h"

#include <strings.h>

#include "http/bearer_token.h"
#include "http/origin_policy.h"

namespace mcpsh::http {

namespace http = boost::beast::http;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// "application/json; charset=utf-8" -> "application/json".
std::string_view media_type(std::string_view value) {
  return trim(value.substr(0, value.find(';')));
}

std::string_view view(boost::beast::string_view s) { return {s.data(), s.size()}; }

}  // namespace

Acceptable acceptable(const Request& header) {
  auto it = header.find(http::field::accept);
  if (it == header.end()) return {};
  Acceptable a{false, false};
  std::string_view list = view(it->value());
  while (true) {
    auto comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    std::string_view type = media_type(item);
    // "q=0" means "not this one".
    std::string_view params = item.substr(std::min(item.size(), type.size()));
    const bool refused = params.find("q=0") != std::string_view::npos &&
                         params.find("q=0.") == std::string_view::npos;
    if (!refused) {
      if (iequals(type, "*/*")) a.json = a.sse = true;
      if (iequals(type, "application/json") || iequals(type, "application/*")) a.json = true;
      if (iequals(type, "text/event-stream") || iequals(type, "text/*")) a.sse = true;
    }
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return a;
}

std::optional<Refusal> check_request(const Request& header, const HttpOptions& options,
                                     bool loopback_bound) {
  if (loopback_bound) {
    auto host = header.find(http::field::host);
    if (host != header.end() && !host_header_is_loopback(view(host->value())))
      return Refusal{403, "Forbidden: the Host header does not name this server", {}};
  }
  if (auto origin = header.find(http::field::origin); origin != header.end()) {
    if (!origin_allowed(view(origin->value()), options.allowed_origins))
      return Refusal{403, "Forbidden: origin not allowed", {}};
  }
  std::string_view target = view(header.target());
  if (target.substr(0, target.find('?')) != options.path)
    return Refusal{404, "Not Found: the MCP endpoint is " + options.path, {}};
  if (header.method() != http::verb::post)
    return Refusal{
        405, "Method Not Allowed: the MCP endpoint takes POST only", {{"Allow", "POST"}}};
  if (options.auth_token) {
    auto auth = header.find(http::field::authorization);
    if (auth == header.end() || !bearer_matches(view(auth->value()), *options.auth_token))
      return Refusal{401,
                     auth == header.end() ? "Unauthorized: a bearer token is required"
                                          : "Unauthorized: the bearer token is not valid",
                     {{"WWW-Authenticate", "Bearer"}}};
  }
  auto type = header.find(http::field::content_type);
  if (type == header.end() || !iequals(media_type(view(type->value())), "application/json"))
    return Refusal{415, "Unsupported Media Type: Content-Type must be application/json", {}};
  Acceptable a = acceptable(header);
  if (!a.json && !a.sse)
    return Refusal{
        406, "Not Acceptable: the client must accept application/json or text/event-stream", {}};
  return std::nullopt;
}

}  // namespace mcpsh::http
