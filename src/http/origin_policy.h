#pragma once
// Who may talk to us, judged from the request's Origin and Host headers (DNS rebinding
// protection, MCP Streamable HTTP "Security"). Pure functions of strings.
#include <string>
#include <string_view>
#include <vector>

namespace mcpsh::http {

// "http://localhost:8080" -> "http://localhost": scheme and host, lower-cased, no port, no
// path. "" when it is not an origin (e.g. "null", no "://").
std::string origin_key(std::string_view origin);

// True when `origin` has the scheme and host of one of `allowed` (case-insensitive), and
// its port when that entry names one: "http://localhost" admits any port, as the old
// core's MCP_ALLOWED_ORIGINS did.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& allowed);

// "a, b,c" -> {"a","b","c"}; empty items dropped.
std::vector<std::string> split_list(std::string_view text);

// A loopback name or literal: localhost, 127.x.y.z, ::1 (bare or in brackets).
bool is_loopback_host(std::string_view host);

// A Host header value ("localhost:3000", "[::1]", ...) names a loopback host. Used when
// the server is bound to loopback: a browser tricked by DNS rebinding sends the attacker's
// name here.
bool host_header_is_loopback(std::string_view host_header);

}  // namespace mcpsh::http
