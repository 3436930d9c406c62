// list, call, read and prompt: the server answering requests in-process, for script authors
// at a terminal. Each request goes through the same code as on the wire (a modern request
// with its _meta, answered by the protocol core), and its result is printed as JSON.
//
// Exit status of call, read and prompt: 0 for a result; 1 when what ran failed (a tool's
// isError result, a resource or prompt function that failed: a JSON-RPC error other than
// the ones below); 2 on misuse (bad options, nothing of that name or URI, missing prompt
// arguments: -32601 and -32602), naming what the scripts offer instead.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <boost/asio/io_context.hpp>
#include <iostream>

#include "cli/host.h"
#include "cli/verbs.h"
#include "jsonrpc/error_codes.h"
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

std::string json_string(const std::string& text) {
  rapidjson::Value v(rapidjson::StringRef(text.data(), text.size()));
  return jsonrpc::to_json(v);
}

// The host serving requests one at a time on this thread. The log outlives the host: the
// server and the executor use it until the host is destroyed.
class OneShot {
 public:
  explicit OneShot(const Options& options)
      : options_(options), log_(options.log_file, options.log_level) {}

  // False, after telling the user why, when the host cannot start.
  bool start() {
    auto error = prepare(host_, options_, log_, [this](std::string line) { take(line); });
    if (!error) return true;
    report_problems(host_);
    std::cerr << "mcp-shell-host: cannot start: " << *error << "\n";
    return false;
  }

  // The response to `method` with the params members `params` (JSON text, may be empty).
  rapidjson::Document ask(const std::string& method, const std::string& params) {
    const int id = ++last_id_;
    response_.reset();
    host_.server->on_line(R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":)" +
                          json_string(method) + R"(,"params":{)" + params +
                          (params.empty() ? "" : ",") + kMeta + "}}");
    if (host_.io.stopped()) host_.io.restart();
    // Every request is answered (the core's promise): the loop only runs out of work first
    // if that promise were broken, and then the caller sees an internal error.
    while (!response_ && host_.io.run_one() > 0) {
    }
    rapidjson::Document d;
    if (response_) d.Parse(response_->c_str());
    if (!response_ || d.HasParseError() || !d.IsObject())
      d.Parse(R"({"error":{"code":-32603,"message":"the request was not answered"}})");
    return d;
  }

  // Every page of a list method's `key` array, gathered into the first page's result
  // (nextCursor removed). An error response is returned as it came.
  rapidjson::Document ask_all(const std::string& method, const char* key) {
    rapidjson::Document first = ask(method, "");
    if (!first.HasMember("result") || !first["result"].IsObject()) return first;
    auto& a = first.GetAllocator();
    rapidjson::Value& result = first["result"];
    std::optional<std::string> cursor = take_cursor(result);
    for (std::size_t pages = 1; cursor && pages < kMaxPages; ++pages) {
      rapidjson::Document page = ask(method, R"("cursor":)" + *cursor);
      if (!page.HasMember("result") || !page["result"].IsObject()) return page;
      rapidjson::Value& more = page["result"];
      if (more.HasMember(key) && more[key].IsArray() && result.HasMember(key) &&
          result[key].IsArray())
        for (auto& item : more[key].GetArray()) result[key].PushBack(rapidjson::Value(item, a), a);
      cursor = take_cursor(more);
    }
    return first;
  }

  Host& host() { return host_; }

 private:
  // Far more pages than any list of the scripts fills: a guard against a cursor that loops.
  static constexpr std::size_t kMaxPages = 1'000'000;

  // The nextCursor of a list result as JSON text, removed from it; nullopt on the last page.
  static std::optional<std::string> take_cursor(rapidjson::Value& result) {
    auto next = result.FindMember("nextCursor");
    if (next == result.MemberEnd()) return std::nullopt;
    std::optional<std::string> cursor;
    if (next->value.IsString()) cursor = jsonrpc::to_json(next->value);
    result.RemoveMember(next);
    return cursor;
  }

  void take(const std::string& line) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    if (d.IsObject() && d.HasMember("id") && d["id"].IsInt() && d["id"].GetInt() == last_id_)
      response_ = line;
  }

  const Options& options_;
  diagnostics::Log log_;
  Host host_;
  int last_id_ = 0;
  std::optional<std::string> response_;
};

// --args as a JSON object, or nullopt after telling the user why not.
std::optional<rapidjson::Document> parsed_args(const Options& options) {
  std::string args = options.args_json.empty() ? "{}" : options.args_json;
  // Parsing recurses per level: a deep value would overflow the stack (jsonrpc::kMaxNesting).
  if (jsonrpc::nesting_depth(args) > jsonrpc::kMaxNesting) {
    std::cerr << "mcp-shell-host: --args is nested deeper than " << jsonrpc::kMaxNesting
              << " levels\n";
    return std::nullopt;
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
    return std::nullopt;
  }
  return parsed;
}

bool is_misuse(int code) {
  return code == jsonrpc::kInvalidParams || code == jsonrpc::kMethodNotFound;
}

// Prints an error response's message; returns its code. A function that asked the client
// something (-32021: the one-shot verbs declare no client capability) gets a hint.
int report_error(const rapidjson::Document& response) {
  constexpr int kMissingClientCapability = -32021;
  const auto& e = response["error"];
  std::cerr << "mcp-shell-host: " << e["message"].GetString() << "\n";
  const int code = e["code"].IsInt() ? e["code"].GetInt() : 0;
  if (code == kMissingClientCapability)
    std::cerr << "mcp-shell-host: it asks the client a question, which this verb cannot "
                 "answer: serve the script to an MCP client\n";
  return code;
}

void print_result(const rapidjson::Document& response) {
  std::cout << jsonrpc::pretty_json(jsonrpc::to_json(response["result"])) << "\n";
}

}  // namespace

int list(const Options& options) {
  OneShot session(options);
  if (!session.start()) return 1;
  report_problems(session.host());
  rapidjson::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  rapidjson::Document tools = session.ask_all("tools/list", "tools");
  if (tools.HasMember("result")) out.CopyFrom(tools["result"], a);
  // The other kinds are there only when the scripts define them (-32601 otherwise).
  for (auto [method, key] : {std::pair{"resources/list", "resources"},
                             {"resources/templates/list", "resourceTemplates"},
                             {"prompts/list", "prompts"}}) {
    rapidjson::Document more = session.ask_all(method, key);
    if (!more.HasMember("result") || !more["result"].HasMember(key)) continue;
    out.RemoveMember(key);
    out.AddMember(rapidjson::StringRef(key), rapidjson::Value(more["result"][key], a), a);
  }
  std::cout << jsonrpc::pretty_json(jsonrpc::to_json(out)) << "\n";
  return 0;
}

int call(const Options& options) {
  auto args = parsed_args(options);
  if (!args) return 2;
  OneShot session(options);
  if (!session.start()) return 2;
  Host& host = session.host();
  auto response = session.ask("tools/call", R"("name":)" + json_string(options.tool) +
                                                R"(,"arguments":)" + jsonrpc::to_json(*args));
  if (response.HasMember("error")) {
    if (!is_misuse(report_error(response))) return 1;
    if (!host.server->problems().empty() || !host.catalog.problems.empty()) report_problems(host);
    std::string tools;
    for (const auto& t : host.catalog.tools) tools += (tools.empty() ? "" : ", ") + t.name;
    std::cerr << "available tools: " << (tools.empty() ? "(none)" : tools) << "\n";
    return 2;
  }
  print_result(response);
  auto is_error = response["result"].FindMember("isError");
  return is_error != response["result"].MemberEnd() && is_error->value.IsTrue() ? 1 : 0;
}

int read_resource(const Options& options) {
  OneShot session(options);
  if (!session.start()) return 2;
  Host& host = session.host();
  auto response = session.ask("resources/read", R"("uri":)" + json_string(options.uri));
  if (response.HasMember("error")) {
    if (!is_misuse(report_error(response))) return 1;
    report_problems(host);
    std::string uris;
    for (const auto& r : host.catalog.resources) uris += (uris.empty() ? "" : ", ") + r.uri;
    for (const auto& dir : options.resource_dirs)
      uris += (uris.empty() ? "" : ", ") + std::string("the files under ") + dir;
    std::cerr << "available resources: " << (uris.empty() ? "(none)" : uris) << "\n";
    return 2;
  }
  print_result(response);
  return 0;
}

int get_prompt(const Options& options) {
  auto args = parsed_args(options);
  if (!args) return 2;
  OneShot session(options);
  if (!session.start()) return 2;
  Host& host = session.host();
  auto response = session.ask("prompts/get", R"("name":)" + json_string(options.prompt) +
                                                 R"(,"arguments":)" + jsonrpc::to_json(*args));
  if (response.HasMember("error")) {
    if (!is_misuse(report_error(response))) return 1;
    report_problems(host);
    std::string prompts;
    for (const auto& p : host.catalog.prompts) {
      std::string shown = p.name;
      std::string args;
      for (const auto& arg : p.arguments)
        args += (args.empty() ? "" : ", ") + arg.name + (arg.required ? "" : "?");
      if (!args.empty()) shown += " (" + args + ")";
      prompts += (prompts.empty() ? "" : ", ") + shown;
    }
    std::cerr << "available prompts: " << (prompts.empty() ? "(none)" : prompts) << "\n";
    return 2;
  }
  print_result(response);
  return 0;
}

}  // namespace mcpsh::cli
