#pragma once
// The transport's own checks of a request header, before its body is read: who may call
// (Host, Origin, bearer token), where (the endpoint path), how (POST, JSON). A request
// that fails one is refused here and never reaches the protocol core.
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <optional>
#include <string>

#include "http/http_options.h"
#include "http/wire_format.h"

namespace mcpsh::http {

using Request = boost::beast::http::request<boost::beast::http::string_body>;

struct Refusal {
  int status = 400;
  std::string message;  // for the JSON-RPC error body and the audit; never holds secrets
  HeaderList headers;   // e.g. Allow, WWW-Authenticate
  // The JSON-RPC error code of the body: -32000 (server error) for refusals with no
  // JSON-RPC meaning of their own.
  int code = -32000;
};

// What the client takes back, from its Accept header. No Accept: both.
struct Acceptable {
  bool json = true;
  bool sse = true;
};
Acceptable acceptable(const Request& header);

// In the order the checks run: Host (403, when `loopback_bound`), Origin (403), path (404),
// method (405 with Allow: POST), bearer token (401 with WWW-Authenticate: Bearer),
// Content-Type (415), Accept (406: it takes neither JSON nor SSE).
std::optional<Refusal> check_request(const Request& header, const HttpOptions& options,
                                     bool loopback_bound);

}  // namespace mcpsh::http
