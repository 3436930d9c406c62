#pragma once
// The two JSON files an old-core server names: MCP_TOOLS_LIST_FILE ({"tools":[...]}) and
// MCP_CONFIG_FILE (a server/discover body with serverInfo, instructions, ...).
#include <optional>
#include <string>
#include <vector>

#include "discovery/catalog.h"

namespace mcpsh::discovery {

struct AdvertisedTool {
  std::string name;
  std::string definition_json;  // the tool object exactly as in the file (compact)
  std::optional<std::chrono::milliseconds> timeout;
};

struct ToolsFile {
  std::vector<AdvertisedTool> tools;
  std::vector<std::string> errors;  // a file that cannot be used at all has errors, no tools
};

ToolsFile read_tools_file(const std::string& path);

// nullopt + error text when the file is unreadable or not a JSON object.
std::optional<ServerProfile> read_config_file(const std::string& path, std::string& error);

// Reads a whole file; nullopt when it cannot be read.
std::optional<std::string> read_text_file(const std::string& path);

// MCP tool names: 1..128 of [A-Za-z0-9_.-]; the host also needs a valid bash name
// suffix for tool_<name>, which the same set satisfies.
bool valid_tool_name(std::string_view name);

}  // namespace mcpsh::discovery
