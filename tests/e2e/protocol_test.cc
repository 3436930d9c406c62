// The protocol as a client sees it on the real binary's stdin/stdout: the error classes of
// product.md, the _meta rules, notifications, id echo, line framing, result shapes.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "host_process.h"

namespace mcpsh::testing {
namespace {

constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kUnsupportedVersion = -32022;

// How long "nothing arrives" is watched for. A response, when there is one, comes within
// milliseconds; this only bounds how long a test waits to be sure there is none.
constexpr auto kQuiet = 500ms;

class Protocol : public ::testing::Test {
 protected:
  HostProcess host{{fixture("basic.sh")}};

  std::optional<std::string> ask(const std::string& line) {
    host.send(line);
    return host.read_line(20s);
  }
};

// ---- the error table of product.md, one row per test ---------------------------------

TEST_F(Protocol, ToolExitingNonZeroIsAnIsErrorResultWithItsText) {
  auto line = ask(call_request("1", "fail", R"({"message":"the disk is full"})"));
  ASSERT_TRUE(is_call_result(line, /*is_error=*/true, "1"));
  auto d = parse_strict(*line);
  EXPECT_EQ(result_text(d), "the disk is full");
  EXPECT_FALSE(d["result"].HasMember("structuredContent")) << *line;
}

TEST_F(Protocol, UnknownToolIsInvalidParams) {
  auto line = ask(call_request("2", "no_such_tool"));
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "2"));
  EXPECT_NE(error_message(line).find("no_such_tool"), std::string::npos) << *line;
}

TEST_F(Protocol, ArgumentsNotAnObjectIsInvalidParams) {
  int id = 10;
  for (const char* arguments : {"[1,2]", R"("text")", "3", "true", "null"}) {
    std::string id_json = std::to_string(++id);
    auto line = ask(call_request(id_json, "echo_args", arguments));
    EXPECT_TRUE(is_error_response(line, kInvalidParams, id_json)) << "arguments " << arguments;
  }
}

TEST_F(Protocol, NameMissingIsInvalidParams) {
  auto line = ask(request("3", "tools/call", R"("arguments":{})"));
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "3"));
  EXPECT_NE(error_message(line).find("name"), std::string::npos) << *line;
}

TEST_F(Protocol, NameNotAStringIsInvalidParams) {
  auto line = ask(request("4", "tools/call", R"("name":["hi"])"));
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "4"));
}

TEST_F(Protocol, UnknownMethodIsMethodNotFound) {
  auto line = ask(request("5", "tools/frobnicate"));
  EXPECT_TRUE(is_error_response(line, kMethodNotFound, "5"));
}

TEST_F(Protocol, WrongJsonrpcVersionIsInvalidRequestEchoingTheId) {
  auto line =
      ask(R"({"jsonrpc":"1.0","id":"v1","method":"tools/list","params":{)" + modern_meta() + "}}");
  EXPECT_TRUE(is_error_response(line, kInvalidRequest, R"("v1")"));
}

TEST_F(Protocol, MissingJsonrpcMemberIsInvalidRequestEchoingTheId) {
  auto line = ask(R"({"id":6,"method":"tools/list","params":{)" + modern_meta() + "}}");
  EXPECT_TRUE(is_error_response(line, kInvalidRequest, "6"));
}

TEST_F(Protocol, BatchIsInvalidRequestWithoutId) {
  auto line = ask("[" + request("7", "tools/list") + "," + request("8", "server/discover") + "]");
  EXPECT_TRUE(is_error_response(line, kInvalidRequest, std::nullopt));
  EXPECT_TRUE(host.silent_for(kQuiet)) << "a batch gets one error, not one per member";
}

TEST_F(Protocol, NullIdIsInvalidRequestWithoutId) {
  auto line = ask(request("null", "tools/list"));
  EXPECT_TRUE(is_error_response(line, kInvalidRequest, std::nullopt));
}

TEST_F(Protocol, FloatIdIsInvalidRequestWithoutId) {
  auto line = ask(request("1.5", "tools/list"));
  EXPECT_TRUE(is_error_response(line, kInvalidRequest, std::nullopt));
}

TEST_F(Protocol, UnparseableLineIsParseErrorWithoutIdMember) {
  auto line = ask(R"({"jsonrpc":"2.0","id":9,"method":)");
  EXPECT_TRUE(is_error_response(line, kParseError, std::nullopt));
  EXPECT_EQ(line->find("\"id\""), std::string::npos) << "not even \"id\": null: " << *line;
}

TEST_F(Protocol, InvalidUtf8IsParseError) {
  auto line = ask("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/\xff\"}");
  EXPECT_TRUE(is_error_response(line, kParseError, std::nullopt));
}

TEST_F(Protocol, UnsupportedVersionIsMinus32022WithRequestedAndSupported) {
  auto line = ask(R"({"jsonrpc":"2.0","id":10,"method":"tools/list","params":{"_meta":{)"
                  R"("io.modelcontextprotocol/protocolVersion":"1999-01-01",)"
                  R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
  ASSERT_TRUE(is_error_response(line, kUnsupportedVersion, "10"));
  auto d = parse_strict(*line);
  ASSERT_TRUE(d["error"].HasMember("data")) << *line;
  const auto& data = d["error"]["data"];
  EXPECT_STREQ(data["requested"].GetString(), "1999-01-01");
  ASSERT_TRUE(data["supported"].IsArray()) << *line;
  bool has_current = false;
  for (const auto& v : data["supported"].GetArray())
    has_current |= std::string(v.GetString()) == "2026-07-28";
  EXPECT_TRUE(has_current) << *line;
}

TEST_F(Protocol, UnsupportedVersionOnToolsCallRunsNothing) {
  auto line =
      ask(R"({"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"hi","_meta":{)"
          R"("io.modelcontextprotocol/protocolVersion":"2020-01-01",)"
          R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
  EXPECT_TRUE(is_error_response(line, kUnsupportedVersion, "11"));
}

// ---- the _meta rules ------------------------------------------------------------------

TEST_F(Protocol, MissingVersionIsInvalidParamsNamingIt) {
  for (const char* method : {"tools/list", "tools/call", "server/discover"}) {
    auto line = ask(
        std::string(R"({"jsonrpc":"2.0","id":1,"method":")") + method +
        R"(","params":{"name":"hi","_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}})");
    EXPECT_TRUE(is_error_response(line, kInvalidParams, "1")) << method;
    EXPECT_NE(error_message(line).find("io.modelcontextprotocol/protocolVersion"),
              std::string::npos)
        << method << ": " << line.value_or("");
  }
}

TEST_F(Protocol, MissingCapabilitiesIsInvalidParamsNamingThem) {
  for (const char* method : {"tools/list", "tools/call", "server/discover"}) {
    auto line = ask(
        std::string(R"({"jsonrpc":"2.0","id":2,"method":")") + method +
        R"(","params":{"name":"hi","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}})");
    EXPECT_TRUE(is_error_response(line, kInvalidParams, "2")) << method;
    EXPECT_NE(error_message(line).find("io.modelcontextprotocol/clientCapabilities"),
              std::string::npos)
        << method << ": " << line.value_or("");
  }
}

TEST_F(Protocol, NoParamsAtAllIsInvalidParams) {
  auto line = ask(R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})");
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "3"));
}

// basic-versioning.mdx: an unsupported version MUST get -32022, server/discover included
// (the stdio probe returns a DiscoverResult or UnsupportedProtocolVersionError).
TEST_F(Protocol, DiscoverRefusesAnUnsupportedVersion) {
  auto line = ask(R"({"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{)"
                  R"("io.modelcontextprotocol/protocolVersion":"1999-01-01",)"
                  R"("io.modelcontextprotocol/clientCapabilities":{}}}})");
  ASSERT_TRUE(is_error_response(line, kUnsupportedVersion, "4"));
  auto d = parse_strict(*line);
  EXPECT_STREQ(d["error"]["data"]["requested"].GetString(), "1999-01-01") << *line;
  EXPECT_TRUE(d["error"]["data"]["supported"].IsArray()) << *line;
}

TEST_F(Protocol, InvalidLogLevelIsInvalidParams) {
  auto line = ask(call_request("5", "hi", "{}", R"("io.modelcontextprotocol/logLevel":"loud")"));
  EXPECT_TRUE(is_error_response(line, kInvalidParams, "5"));
}

// ---- notifications and responses are never answered -----------------------------------

TEST_F(Protocol, NotificationsAreNeverAnswered) {
  for (const std::string& n : std::vector<std::string>{
           R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
           R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12345}})",
           R"({"jsonrpc":"2.0","method":"no/such/notification","params":{}})",
           R"({"jsonrpc":"2.0","method":"tools/list"})",
           R"({"method":"notifications/initialized"})",  // no "jsonrpc"
           R"({"jsonrpc":"1.0","method":"x"})",
           R"({"jsonrpc":"2.0","method":7})",
           R"({"jsonrpc":"2.0","method":"x","params":[1]})",
           R"({"jsonrpc":"2.0","method":"x","params":"p"})",
       })
    host.send(n);
  EXPECT_TRUE(host.silent_for(kQuiet));
  // The host is still serving, and the first line it sends is the answer to this.
  auto line = ask(request("\"after\"", "tools/list"));
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(R"("id":"after")"), std::string::npos) << *line;
}

TEST_F(Protocol, ResponsesFromTheClientAreIgnored) {
  host.send(R"({"jsonrpc":"2.0","id":1,"result":{}})");
  host.send(R"({"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}})");
  EXPECT_TRUE(host.silent_for(kQuiet));
}

// ---- ids are echoed exactly ------------------------------------------------------------

class IdEcho : public ::testing::TestWithParam<const char*> {};

TEST_P(IdEcho, OnResultsAndErrors) {
  const std::string id = GetParam();
  HostProcess host({fixture("basic.sh")});
  host.send(request(id, "tools/list"));
  auto list = host.read_line(20s);
  ASSERT_TRUE(list.has_value());
  EXPECT_NE(list->find("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":"), std::string::npos)
      << *list;

  host.send(call_request(id, "hi"));
  auto call = host.read_line(20s);
  EXPECT_TRUE(is_call_result(call, false, id));

  host.send(request(id, "no/such/method"));
  EXPECT_TRUE(is_error_response(host.read_line(20s), kMethodNotFound, id));
}

INSTANTIATE_TEST_SUITE_P(Ids, IdEcho,
                         ::testing::Values("0", "7", "-42", "9007199254740993",
                                           "18446744073709551615", "-9223372036854775808",
                                           R"("abc")", R"("")", R"("7")",
                                           R"("with \"quotes\" and \\ slash")",
                                           "\"\xC3\xA9t\xC3\xA9\""),
                         [](const auto& info) { return "Id" + std::to_string(info.index); });

// ---- line framing ------------------------------------------------------------------------

TEST_F(Protocol, CrlfLineIsAccepted) {
  host.send_raw(request("1", "tools/list") + "\r\n");
  auto line = host.read_line(20s);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(R"("id":1,"result")"), std::string::npos) << *line;
  EXPECT_EQ(line->find('\r'), std::string::npos);
}

TEST_F(Protocol, BlankAndWhitespaceLinesAreIgnored) {
  host.send_raw("\n\n   \n\t\r\n\r\n");
  EXPECT_TRUE(host.silent_for(kQuiet)) << "a blank line is not a message (no -32700)";
  auto line = ask(request("2", "tools/list"));
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(R"("id":2,"result")"), std::string::npos) << *line;
}

TEST_F(Protocol, FinalLineWithoutNewlineIsProcessed) {
  host.send_raw(request("3", "tools/list"));  // no '\n'
  host.close_stdin();
  auto line = host.read_line(20s);
  ASSERT_TRUE(line.has_value());
  EXPECT_NE(line->find(R"("id":3,"result")"), std::string::npos) << *line;
  auto status = host.wait_exit(20s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

TEST_F(Protocol, SeveralRequestsInOneWriteAreAllAnswered) {
  host.send_raw(request("1", "tools/list") + "\n" + request("2", "server/discover") + "\r\n" +
                call_request("3", "hi") + "\n");
  auto lines = host.read_lines(3, 20s);
  ASSERT_EQ(lines.size(), 3u);
  std::string all = lines[0] + lines[1] + lines[2];
  for (const char* id : {R"("id":1,)", R"("id":2,)", R"("id":3,)"})
    EXPECT_NE(all.find(id), std::string::npos) << id;
}

TEST(ProtocolFraming, FourMebibyteRequestLineIsHandled) {
  HostProcess host({fixture("basic.sh")});
  const std::string big(4u << 20, 'x');
  host.send(call_request("1", "arg_length", R"({"s":")" + big + R"("})"));
  auto line = host.read_line(60s);
  ASSERT_TRUE(is_call_result(line, false, "1"));
  // The tool sees the whole arguments object: {"s":"<4 MiB>"}; argv could not carry it.
  EXPECT_EQ(result_text(parse_strict(*line)), std::to_string(big.size() + 8));
}

TEST(ProtocolFraming, OversizedLineIsRejectedAndTheNextLineServed) {
  HostProcess host({"--max-line", "1k", fixture("basic.sh")});
  host.send(call_request("1", "arg_length", R"({"s":")" + std::string(4096, 'y') + R"("})"));
  auto line = host.read_line(20s);
  EXPECT_TRUE(is_error_response(line, kInvalidRequest, std::nullopt));
  host.send(request("2", "tools/list"));
  auto next = host.read_line(20s);
  ASSERT_TRUE(next.has_value());
  EXPECT_NE(next->find(R"("id":2,"result")"), std::string::npos) << *next;
}

TEST(ProtocolFraming, DeeplyNestedLinesDoNotCrashTheHost) {
  HostProcess host({fixture("basic.sh")});
  host.send(std::string(1000000, '['));
  EXPECT_TRUE(is_error_response(host.read_line(20s), kParseError, std::nullopt));
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  host.send(call_request("2", "echo_args", R"({"a":)" + deep + "}"));
  EXPECT_TRUE(is_error_response(host.read_line(20s), kInvalidRequest, "2"));
  host.send(request("3", "tools/list"));
  auto line = host.read_line(20s);
  ASSERT_TRUE(line.has_value()) << "the host died: " << host.stderr_text().substr(0, 2000);
  EXPECT_NE(line->find(R"("id":3,"result")"), std::string::npos) << *line;
}

// ---- stdout carries nothing but compact one-line JSON ----------------------------------

TEST(ProtocolStdout, OnlyCompactJsonLines) {
  HostProcess host({fixture("basic.sh")});
  std::vector<std::string> requests = {
      request("1", "server/discover"),
      request("2", "tools/list"),
      call_request("3", "hi"),
      call_request("4", "multiline"),
      call_request("5", "bad_utf8"),
      call_request("6", "fail"),
      call_request("7", "fail_quiet"),
      call_request("8", "no_such_tool"),
      "not json",
      R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
      call_request("9", "echo_args", R"({"nested":{"a":[1,2.5,"x\ny"]}})"),
  };
  for (const auto& r : requests) host.send(r);
  // basic.sh prints at top level; that text must never appear as a line of its own.
  auto lines = host.read_lines(10, 30s);
  host.close_stdin();
  while (auto extra = host.read_line(20s)) lines.push_back(*extra);  // until EOF
  ASSERT_EQ(lines.size(), 10u);
  for (const auto& line : lines) {
    auto d = parse_strict(line);
    ASSERT_FALSE(d.HasParseError()) << line;
    ASSERT_TRUE(d.IsObject()) << line;
    EXPECT_EQ(compact_json(d), line) << "not compact";
  }
  auto status = host.wait_exit(20s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

// ---- result shapes ---------------------------------------------------------------------

void expect_server_info(const rapidjson::Value& result) {
  ASSERT_TRUE(result.HasMember("_meta")) << compact_json(result);
  const auto& meta = result["_meta"];
  ASSERT_TRUE(meta.HasMember("io.modelcontextprotocol/serverInfo")) << compact_json(result);
  const auto& info = meta["io.modelcontextprotocol/serverInfo"];
  EXPECT_TRUE(info.IsObject() && info.HasMember("name") && info["name"].IsString() &&
              info.HasMember("version"))
      << compact_json(result);
}

void expect_cache_hints(const rapidjson::Value& result) {
  ASSERT_TRUE(result.HasMember("ttlMs") && result["ttlMs"].IsInt64()) << compact_json(result);
  EXPECT_GE(result["ttlMs"].GetInt64(), 0);
  ASSERT_TRUE(result.HasMember("cacheScope") && result["cacheScope"].IsString())
      << compact_json(result);
  std::string scope = result["cacheScope"].GetString();
  EXPECT_TRUE(scope == "public" || scope == "private") << scope;
}

TEST_F(Protocol, DiscoverResultShape) {
  host.send(request("1", "server/discover"));
  auto d = next_response(host);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result"));
  const auto& r = d["result"];
  EXPECT_STREQ(r["resultType"].GetString(), "complete");
  ASSERT_TRUE(r["supportedVersions"].IsArray());
  EXPECT_STREQ(r["supportedVersions"][0].GetString(), "2026-07-28");
  EXPECT_TRUE(r["capabilities"].IsObject());
  EXPECT_TRUE(r["capabilities"].HasMember("tools")) << compact_json(r);
  expect_cache_hints(r);
  expect_server_info(r);
}

TEST_F(Protocol, ListResultShape) {
  host.send(request("1", "tools/list"));
  auto d = next_response(host);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result"));
  const auto& r = d["result"];
  EXPECT_STREQ(r["resultType"].GetString(), "complete");
  ASSERT_TRUE(r["tools"].IsArray());
  for (const auto& t : r["tools"].GetArray()) {
    EXPECT_TRUE(t["name"].IsString());
    EXPECT_TRUE(t["inputSchema"].IsObject()) << compact_json(t);
  }
  expect_cache_hints(r);
  expect_server_info(r);
}

TEST_F(Protocol, CallResultShapes) {
  for (const char* tool : {"hi", "fail"}) {
    host.send(call_request("1", tool));
    auto d = next_response(host);
    ASSERT_TRUE(d.IsObject() && d.HasMember("result")) << tool;
    const auto& r = d["result"];
    EXPECT_STREQ(r["resultType"].GetString(), "complete") << tool;
    expect_server_info(r);
    ASSERT_TRUE(r["content"].IsArray() && r["content"].Size() == 1) << compact_json(r);
    EXPECT_STREQ(r["content"][0]["type"].GetString(), "text");
  }
}

std::vector<std::string> tool_names(const rapidjson::Document& list) {
  std::vector<std::string> names;
  for (const auto& t : list["result"]["tools"].GetArray())
    names.emplace_back(t["name"].GetString());
  return names;
}

TEST(ProtocolResults, ToolsAreListedInDefinitionOrder) {
  HostProcess host({fixture("basic.sh")});
  host.send(request("1", "tools/list"));
  auto d = next_response(host);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result"));
  EXPECT_EQ(tool_names(d), (std::vector<std::string>{"hi", "echo_args", "fail", "fail_quiet",
                                                     "empty", "multiline", "bad_utf8", "arg_length",
                                                     "sleep", "read_stdin", "kill_self", "env"}));
}

TEST(ProtocolResults, ToolListIsTheSameAcrossRuns) {
  std::vector<std::string> lists;
  for (int run = 0; run < 2; ++run) {
    HostProcess host({fixture("toolbox"), fixture("basic.sh"), fixture("commented.sh")});
    host.send(request("1", "tools/list"));
    auto line = host.read_line(20s);
    ASSERT_TRUE(line.has_value());
    lists.push_back(*line);
  }
  EXPECT_EQ(lists[0], lists[1]);
}

TEST(ProtocolLifecycle, EndOfInputExitsZero) {
  HostProcess host({fixture("basic.sh")});
  host.close_stdin();
  EXPECT_FALSE(host.read_line(20s).has_value());
  auto status = host.wait_exit(20s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

// Runs the host through a shell with stdin and stdout redirected to `in` and `out`
// (e.g. regular files, /dev/null); returns the exit status, or -1 when it did not end.
int run_redirected(const std::string& in, const std::string& out) {
  std::string command = "timeout -s KILL 60 '" + binary_path() + "' '" + fixture("basic.sh") +
                        "' <'" + in + "' >'" + out + "' 2>/dev/null";
  int status = std::system(command.c_str());
  if (!WIFEXITED(status)) return -1;
  return WEXITSTATUS(status) == 128 + SIGKILL ? -1 : WEXITSTATUS(status);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(ProtocolLifecycle, RegularFilesAsStdinAndStdout) {
  // `mcp-shell-host tools.sh < requests.jsonl > responses.jsonl`: no epoll on either.
  char dir[] = "/tmp/mcpsh-files-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string in = std::string(dir) + "/requests.jsonl",
                    out = std::string(dir) + "/responses.jsonl";
  std::ofstream(in) << request("1", "tools/list") << "\n" << call_request("2", "hi") << "\n";
  EXPECT_EQ(run_redirected(in, out), 0) << "must exit 0 at the end of the file";
  std::string responses = read_file(out);
  EXPECT_NE(responses.find(R"({"jsonrpc":"2.0","id":1,"result":)"), std::string::npos) << responses;
  EXPECT_NE(responses.find(R"({"jsonrpc":"2.0","id":2,"result":)"), std::string::npos) << responses;
  EXPECT_EQ(std::count(responses.begin(), responses.end(), '\n'), 2) << responses;
  std::filesystem::remove_all(dir);
}

TEST(ProtocolLifecycle, DevNullStdinExitsZero) {
  char dir[] = "/tmp/mcpsh-files-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string out = std::string(dir) + "/responses.jsonl";
  EXPECT_EQ(run_redirected("/dev/null", out), 0);
  EXPECT_EQ(read_file(out), "");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace mcpsh::testing
