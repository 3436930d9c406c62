#pragma once
// JSON-RPC 2.0 and MCP error codes used by the host.
namespace mcpsh::jsonrpc {

enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kMissingClientCapability = -32021,     // MCP 2026-07-28: data.requiredCapabilities
  kUnsupportedProtocolVersion = -32022,  // MCP 2026-07-28
};

}  // namespace mcpsh::jsonrpc
