#include "cli/http_settings.h"

#include "http/bearer_token.h"
#include "http/origin_policy.h"

namespace mcpsh::cli {

HttpSettings http_settings(const Options& o, const char* (*getenv)(const char*)) {
  HttpSettings result;
  http::HttpOptions h;
  auto env = [getenv](const char* name) -> std::optional<std::string> {
    const char* v = getenv(name);
    if (!v || !*v) return std::nullopt;
    return std::string(v);
  };
  auto fail = [&](std::string text) {
    result.error = std::move(text);
    return result;
  };

  if (o.listen_host)
    h.host = *o.listen_host;
  else if (auto bind = env("MCP_HTTP_BIND"))
    h.host = *bind;
  if (o.listen_port) {
    h.port = *o.listen_port;
  } else if (auto port = env("MCP_HTTP_PORT")) {
    const bool digits =
        port->size() <= 5 && port->find_first_not_of("0123456789") == std::string::npos;
    const unsigned long v = digits ? std::stoul(*port) : 0;
    if (!digits || v > 65535)
      return fail("MCP_HTTP_PORT must be a port between 0 and 65535, got \"" + *port + "\"");
    h.port = static_cast<std::uint16_t>(v);
  }
  if (o.http_path) {
    h.path = *o.http_path;
  } else if (auto path = env("MCP_HTTP_PATH")) {
    if (path->front() != '/' || path->find_first_of("?# \t\r\n") != std::string::npos)
      return fail("MCP_HTTP_PATH must be a path starting with /, got \"" + *path + "\"");
    h.path = *path;
  }
  if (!o.allow_origins.empty())
    h.allowed_origins = o.allow_origins;
  else if (auto origins = env("MCP_ALLOWED_ORIGINS"))
    h.allowed_origins = http::split_list(*origins);
  if (o.auth_token_file) {
    auto loaded = http::load_token_file(*o.auth_token_file);
    if (!loaded.token) return fail(loaded.error);
    h.auth_token = std::move(loaded.token);
  }
  h.max_body = o.max_body.value_or(o.max_line);
  h.max_header = o.max_header;
  h.max_connections = o.max_connections;
  h.idle_timeout = o.idle_timeout;
  h.header_timeout = o.header_timeout;
  result.options = std::move(h);
  return result;
}

}  // namespace mcpsh::cli
