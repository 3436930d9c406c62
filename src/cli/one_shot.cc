// list and call: the server answering one request in-process, for tool authors at a
// terminal. The request goes through the same code as on the wire.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <boost/asio/io_context.hpp>
#include <iostream>

#include "cli/host.h"
#include "cli/verbs.h"
#include "jsonrpc/response.h"

namespace mcpsh::cli {

namespace {

constexpr const char* kMeta =
    R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
    R"("io.modelcontextprotocol/clientInfo":{"name":"mcp-shell-host-cli","version":")" MCPSH_VERSION
    R"("},"io.modelcontextprotocol/clientCapabilities":{}})";

void report_problems(const Host& host) {
  for (const auto& p : all_problems(host))
    std::cerr << (p.severity == discovery::Problem::Severity::kError ? "error: " : "warning: ")
              << p.where << ": " << p.what << "\n";
}

// Sends one request line and returns the response line. `log` is the caller's: the server
// and the executor in `host` keep using it until `host` is destroyed.
std::optional<std::string> ask(const Options& options, const std::string& request, Host& host,
                               diagnostics::Log& log) {
  std::optional<std::string> response;
  auto error = prepare(host, options, log, [&](std::string line) {
    if (line.find("\"id\":1,") != std::string::npos || line.find("\"id\":1}") != std::string::npos)
      response = std::move(line);
  });
  if (error) {
    report_problems(host);
    std::cerr << "mcp-shell-host: cannot start: " << *error << "\n";
    return std::nullopt;
  }
  host.server->on_line(request);
  while (!response) host.io.run_one();
  return response;
}

}  // namespace

int list(const Options& options) {
  diagnostics::Log log(options.log_file, options.log_level);  // outlives host
  Host host;
  auto response =
      ask(options,
          std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{)") + kMeta + "}}",
          host, log);
  if (!response) return 1;
  report_problems(host);
  rapidjson::Document doc;
  doc.Parse(response->c_str());
  std::cout << jsonrpc::pretty_json(jsonrpc::to_json(doc["result"])) << "\n";
  return 0;
}

int call(const Options& options) {
  std::string args = options.args_json.empty() ? "{}" : options.args_json;
  // Parsing recurses per level: a deep value would overflow the stack (jsonrpc::kMaxNesting).
  if (jsonrpc::nesting_depth(args) > jsonrpc::kMaxNesting) {
    std::cerr << "mcp-shell-host: --args is nested deeper than " << jsonrpc::kMaxNesting
              << " levels\n";
    return 2;
  }
  rapidjson::Document parsed;
  parsed.Parse(args.c_str());
  if (parsed.HasParseError() || !parsed.IsObject()) {
    std::cerr << "mcp-shell-host: --args must be a JSON object"
              << (parsed.HasParseError()
                      ? std::string(" (") + rapidjson::GetParseError_En(parsed.GetParseError()) +
                            ")"
                      : "")
              << "\n";
    return 2;
  }
  rapidjson::Document name(rapidjson::kStringType);
  name.SetString(options.tool.c_str(), name.GetAllocator());
  diagnostics::Log log(options.log_file, options.log_level);  // outlives host
  Host host;
  auto response =
      ask(options,
          std::string(R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":)") +
              jsonrpc::to_json(name) + R"(,"arguments":)" + jsonrpc::to_json(parsed) + "," + kMeta +
              "}}",
          host, log);
  if (!response) return 2;
  rapidjson::Document doc;
  doc.Parse(response->c_str());
  if (doc.HasMember("error")) {
    std::cerr << "mcp-shell-host: " << doc["error"]["message"].GetString() << "\n";
    if (!host.server->problems().empty() || !host.catalog.problems.empty()) report_problems(host);
    std::string tools;
    for (const auto& t : host.catalog.tools) tools += (tools.empty() ? "" : ", ") + t.name;
    std::cerr << "available tools: " << (tools.empty() ? "(none)" : tools) << "\n";
    return 2;
  }
  std::cout << jsonrpc::pretty_json(jsonrpc::to_json(doc["result"])) << "\n";
  auto is_error = doc["result"].FindMember("isError");
  return is_error != doc["result"].MemberEnd() && is_error->value.IsTrue() ? 1 : 0;
}

}  // namespace mcpsh::cli
