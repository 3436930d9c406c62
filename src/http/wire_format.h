#pragma once
// The bytes we write: response heads, JSON bodies, SSE events as HTTP/1.1 chunks, and the
// JSON-RPC error bodies of refusals. Pure functions; no I/O.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mcp/connection.h"

namespace mcpsh::http {

using HeaderList = std::vector<std::pair<std::string, std::string>>;

// A whole response with a body of known length (the body is written after the head, as a
// separate buffer: it is not copied).
std::string response_head(int status, std::string_view content_type, std::size_t content_length,
                          bool keep_alive, const HeaderList& extra = {});

// The head of an SSE stream: 200, text/event-stream, chunked, no caching or buffering.
std::string sse_head(bool keep_alive, const HeaderList& extra = {});
// One SSE event ("event: message", the line as its data) framed as one chunk. The line
// holds no '\n' (the core's lines are single-line JSON).
std::string sse_event_chunk(std::string_view line);
// The end of a chunked body.
inline std::string_view last_chunk() { return "0\r\n\r\n"; }

// The JSON-RPC error body of a refusal by the transport: no id (the request was not read,
// or not trusted enough to be read).
std::string refusal_body(int code, std::string_view message);

// The HTTP status of a request's final response, from its JSON-RPC error code (MCP
// 2026-07-28 Streamable HTTP and basic): -32700, -32600, -32602, -32020, -32021, -32022
// -> 400; -32601 -> 404; anything else (results, tool errors, -32603) -> 200.
int status_for(const mcpsh::mcp::Outgoing& response);

}  // namespace mcpsh::http
