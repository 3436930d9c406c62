#include "http/wire_format.h"

#include <boost/beast/http/status.hpp>
#include <cstdio>

#include "jsonrpc/error_codes.h"
#include "jsonrpc/response.h"

namespace mcpsh::http {

namespace {
constexpr int kHeaderMismatch = -32020;
constexpr int kMissingClientCapability = -32021;
constexpr int kUnsupportedVersion = -32022;

std::string status_line(int status) {
  const auto reason =
      boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(status));
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason.data(), reason.size()) +
         "\r\n";
}
}  // namespace

std::string response_head(int status, std::string_view content_type, std::size_t content_length,
                          bool keep_alive, const HeaderList& extra) {
  std::string head = status_line(status);
  if (!content_type.empty()) head.append("Content-Type: ").append(content_type).append("\r\n");
  head += "Content-Length: " + std::to_string(content_length) + "\r\n";
  for (const auto& [name, value] : extra) head += name + ": " + value + "\r\n";
  if (!keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

std::string sse_head(bool keep_alive, const HeaderList& extra) {
  std::string head = status_line(200);
  head +=
      "Content-Type: text/event-stream\r\n"
      "Cache-Control: no-cache\r\n"
      "X-Accel-Buffering: no\r\n"
      "Transfer-Encoding: chunked\r\n";
  for (const auto& [name, value] : extra) head += name + ": " + value + "\r\n";
  if (!keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

std::string sse_event_chunk(std::string_view line) {
  constexpr std::string_view kPrefix = "event: message\ndata: ", kSuffix = "\n\n";
  const std::size_t size = kPrefix.size() + line.size() + kSuffix.size();
  char hex[24];
  const int n = std::snprintf(hex, sizeof hex, "%zx\r\n", size);
  std::string chunk;
  chunk.reserve(static_cast<std::size_t>(n) + size + 2);
  chunk.append(hex, static_cast<std::size_t>(n));
  chunk.append(kPrefix).append(line).append(kSuffix).append("\r\n");
  return chunk;
}

std::string refusal_body(int code, std::string_view message) {
  return jsonrpc::error_line(std::nullopt, code, message);
}

int status_for(const mcpsh::mcp::Outgoing& response) {
  if (!response.error_code) return 200;
  switch (*response.error_code) {
    case jsonrpc::kParseError:
    case jsonrpc::kInvalidRequest:
    // Invalid params: a request without the required _meta MUST be 400 (MCP 2026-07-28,
    // basic); the code alone does not tell that case from an unknown tool or bad
    // arguments, which the spec leaves open, so they are 400 too.
    case jsonrpc::kInvalidParams:
    case kMissingClientCapability:
    case kHeaderMismatch:
    case kUnsupportedVersion:
      return 400;
    case jsonrpc::kMethodNotFound:
      return 404;
    default:
      return 200;
  }
}

}  // namespace mcpsh::http
