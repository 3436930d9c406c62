#pragma once
// The HTTP transport's settings from the command line, then the old core's environment
// (MCP_HTTP_BIND, MCP_HTTP_PORT, MCP_HTTP_PATH, MCP_ALLOWED_ORIGINS), then defaults; and
// the bearer token read from its file. Reads files and the environment; starts nothing.
#include <optional>
#include <string>

#include "cli/options.h"
#include "http/http_options.h"

namespace mcpsh::cli {

struct HttpSettings {
  std::optional<http::HttpOptions> options;
  std::string error;  // set when options is empty: for the user (exit 2)
};

// `getenv` is std::getenv, or a fake in tests.
HttpSettings http_settings(const Options& options, const char* (*getenv)(const char*));

}  // namespace mcpsh::cli
