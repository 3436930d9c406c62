#pragma once
// Helpers shared by the protocol, tools, discovery and verbs end-to-end tests: running a
// verb to completion, and checking JSON-RPC responses as the wire carries them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/wait.h>

#include <optional>
#include <string>
#include <vector>

#include "host_process.h"

namespace mcpsh::testing {

// The whole run of a one-shot verb (list, call, check, --help, ...).
struct CliRun {
  int status = -1;  // exit status; 128 + N when killed by signal N; -1 if it never ended
  std::string out;  // stdout, lines joined with '\n' (each line ended with '\n')
  std::string err;  // stderr
};

inline CliRun run_cli(const std::vector<std::string>& args, HostOptions options = {},
                      std::chrono::milliseconds timeout = 30s) {
  HostProcess host(args, std::move(options));
  host.close_stdin();
  CliRun run;
  while (auto line = host.read_line(timeout)) run.out += *line + "\n";
  if (auto status = host.wait_exit(timeout)) {
    run.status = WIFEXITED(*status) ? WEXITSTATUS(*status) : 128 + WTERMSIG(*status);
  }
  run.err = host.stderr_text();
  return run;
}

inline std::string compact_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// A response line parsed with every check the wire needs (valid UTF-8, exact numbers).
inline rapidjson::Document parse_strict(const std::string& line) {
  rapidjson::Document d;
  d.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseValidateEncodingFlag>(line.c_str(),
                                                                                      line.size());
  return d;
}

// A JSON-RPC error response with `code`; with `id_json` echoed exactly (the text after
// "id": in the line) or, when it is nullopt, with no "id" member at all.
inline ::testing::AssertionResult is_error_response(const std::optional<std::string>& line,
                                                    int code,
                                                    const std::optional<std::string>& id_json) {
  if (!line) return ::testing::AssertionFailure() << "no response";
  auto d = parse_strict(*line);
  if (d.HasParseError() || !d.IsObject())
    return ::testing::AssertionFailure() << "not a JSON object: " << *line;
  if (!d.HasMember("error") || d.HasMember("result"))
    return ::testing::AssertionFailure() << "not an error response: " << *line;
  const auto& e = d["error"];
  if (!e.IsObject() || !e.HasMember("code") || !e["code"].IsInt() || e["code"].GetInt() != code)
    return ::testing::AssertionFailure() << "wanted code " << code << ": " << *line;
  if (!e.HasMember("message") || !e["message"].IsString() || e["message"].GetStringLength() == 0)
    return ::testing::AssertionFailure() << "no message: " << *line;
  if (!d.HasMember("jsonrpc") || !d["jsonrpc"].IsString() ||
      std::string(d["jsonrpc"].GetString()) != "2.0")
    return ::testing::AssertionFailure() << "no \"jsonrpc\":\"2.0\": " << *line;
  if (!id_json) {
    if (d.HasMember("id")) return ::testing::AssertionFailure() << "has an id member: " << *line;
  } else if (line->find("\"id\":" + *id_json + ",") == std::string::npos) {
    return ::testing::AssertionFailure() << "id " << *id_json << " not echoed exactly: " << *line;
  }
  return ::testing::AssertionSuccess();
}

// The error message of an error response ("" if it is not one).
inline std::string error_message(const std::optional<std::string>& line) {
  if (!line) return "";
  auto d = parse_strict(*line);
  if (!d.IsObject() || !d.HasMember("error") || !d["error"].HasMember("message")) return "";
  return d["error"]["message"].GetString();
}

// A success response whose result is a CallToolResult (has content).
inline ::testing::AssertionResult is_call_result(const std::optional<std::string>& line,
                                                 bool is_error, const std::string& id_json) {
  if (!line) return ::testing::AssertionFailure() << "no response";
  auto d = parse_strict(*line);
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("result") || !d["result"].IsObject())
    return ::testing::AssertionFailure() << "not a result response: " << *line;
  if (line->find("\"id\":" + id_json + ",") == std::string::npos)
    return ::testing::AssertionFailure() << "id " << id_json << " not echoed exactly: " << *line;
  if (!d["result"].HasMember("content") || !d["result"]["content"].IsArray())
    return ::testing::AssertionFailure() << "no content array: " << *line;
  if (is_error_result(d) != is_error)
    return ::testing::AssertionFailure() << "isError is not " << is_error << ": " << *line;
  return ::testing::AssertionSuccess();
}

// Reads one response line and returns it parsed (an empty Document on timeout).
inline rapidjson::Document next_response(HostProcess& host,
                                         std::chrono::milliseconds timeout = 20s) {
  auto line = host.read_line(timeout);
  EXPECT_TRUE(line.has_value()) << "no response within " << timeout.count() << " ms";
  return parse_strict(line.value_or(""));
}

}  // namespace mcpsh::testing
