// The tool author contract, end to end: arguments in, text and exit status out, and only
// tool_<name> functions can ever run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "e2e_helpers.h"
#include "host_process.h"

namespace mcpsh::testing {
namespace {

constexpr int kInvalidParams = -32602;

// Calls one tool on a fresh host started with `args` and returns the parsed response.
rapidjson::Document call_once(const std::vector<std::string>& args, const std::string& tool,
                              const std::string& arguments = "{}") {
  HostProcess host(args);
  host.send(call_request("1", tool, arguments));
  return next_response(host, 30s);
}

std::string text_of(const std::vector<std::string>& args, const std::string& tool,
                    bool expect_error, const std::string& arguments = "{}") {
  auto d = call_once(args, tool, arguments);
  EXPECT_TRUE(d.IsObject() && d.HasMember("result"))
      << (d.IsObject() ? compact_json(d) : "no response");
  EXPECT_EQ(is_error_result(d), expect_error) << compact_json(d);
  return result_text(d);
}

const std::vector<std::string> kBasic = {fixture("basic.sh")};
const std::vector<std::string> kContract = {fixture("contract.sh")};

TEST(Tools, OutputIsTheResultText) { EXPECT_EQ(text_of(kBasic, "hi", false), "hi"); }

TEST(Tools, ArgumentsArriveAsOneJsonStringInDollarOne) {
  const std::string args = R"({"a":1,"b":"two words","c":[true,null]})";
  EXPECT_EQ(text_of(kBasic, "echo_args", false, args), args);
}

TEST(Tools, AbsentArgumentsArriveAsEmptyObject) {
  HostProcess host(kBasic);
  host.send(request("1", "tools/call", R"("name":"echo_args")"));
  EXPECT_EQ(result_text(next_response(host)), "{}");
}

TEST(Tools, ArgumentsAreNeverEvaluated) {
  // Shell syntax inside a value stays text; jq decodes it back unchanged.
  const std::string text = "$(touch /tmp/mcpsh-never) `id` ${HOME} \"; exit 1; \\ '\n end";
  HostProcess host(kContract);
  host.send(
      call_request("1", "print_text",
                   R"({"text":"$(touch /tmp/mcpsh-never) `id` ${HOME} \"; exit 1; \\ '\n end"})"));
  auto d = next_response(host);
  EXPECT_FALSE(is_error_result(d)) << compact_json(d);
  EXPECT_EQ(result_text(d), text);
}

TEST(Tools, OneMebibyteArgumentArrivesIntact) {
  // Every byte value a JSON string may carry, repeated past 1 MiB; the output limit is
  // raised so the whole echo comes back.
  std::string value;
  for (int c = 0x20; c < 0x7f; ++c)
    value += (c == '"' || c == '\\') ? std::string("\\") + char(c) : std::string(1, char(c));
  value += "\\n\\t\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
  std::string arguments = R"({"s":")";
  while (arguments.size() < (1u << 20)) arguments += value;
  arguments += "\"}";
  HostProcess host({"--max-output", "4M", fixture("basic.sh")});
  host.send(call_request("1", "echo_args", arguments));
  auto d = next_response(host, 60s);
  EXPECT_FALSE(is_error_result(d));
  EXPECT_EQ(result_text(d), arguments);
}

TEST(Tools, OneMebibyteArgumentLengthIsExact) {
  const std::string big(1u << 20, 'z');
  EXPECT_EQ(text_of(kBasic, "arg_length", false, R"({"s":")" + big + R"("})"),
            std::to_string(big.size() + 8));
}

TEST(Tools, StdinIsDevNull) {
  HostProcess host(kBasic);
  // More protocol input is waiting while the tool runs: it must not see any of it.
  host.send_raw(call_request("1", "read_stdin") + "\n" + request("2", "tools/list") + "\n");
  auto lines = host.read_lines(2, 20s);
  ASSERT_EQ(lines.size(), 2u);
  std::string call = lines[0].find(R"("id":1,)") != std::string::npos ? lines[0] : lines[1];
  EXPECT_EQ(result_text(parse_strict(call)), "stdin is empty") << call;
  EXPECT_EQ(text_of(kContract, "stdin_target", false), "/dev/null");
}

TEST(Tools, TrailingNewlinesTrimmedInnerLinesKept) {
  EXPECT_EQ(text_of(kBasic, "multiline", false), "line 1\n\nline 3");
}

TEST(Tools, CarriageReturnIsNotTrimmed) { EXPECT_EQ(text_of(kContract, "crlf", false), "a\r"); }

TEST(Tools, EmptyOutputOnSuccessIsEmptyText) { EXPECT_EQ(text_of(kBasic, "empty", false), ""); }

TEST(Tools, FailureWithOnlyStderrShowsTheStderrTail) {
  std::string text = text_of(kBasic, "fail_quiet", true);
  EXPECT_NE(text.find("details on stderr"), std::string::npos) << text;
  EXPECT_NE(text.find("4"), std::string::npos) << "names the exit status: " << text;
}

TEST(Tools, SilentFailureSaysWhichStatus) {
  std::string text = text_of(kContract, "silent_fail", true);
  EXPECT_NE(text.find("failed with exit status 5"), std::string::npos) << text;
}

TEST(Tools, InvalidUtf8OutputStillGivesValidJson) {
  HostProcess host(kBasic);
  host.send(call_request("1", "bad_utf8"));
  auto line = host.read_line(20s);
  ASSERT_TRUE(line.has_value());
  auto d = parse_strict(*line);  // validates the encoding
  ASSERT_FALSE(d.HasParseError()) << *line;
  std::string text = result_text(d);
  EXPECT_EQ(text.rfind("ok ", 0), 0u) << text;
  EXPECT_NE(text.find(" bytes "), std::string::npos) << text;
  EXPECT_NE(text.find("\xEF\xBF\xBD"), std::string::npos)
      << "U+FFFD in place of the bad bytes: " << text;
}

TEST(Tools, ControlCharactersAndNulAreEscapedNotDropped) {
  HostProcess host(kContract);
  host.send(call_request("1", "control_chars"));
  auto line = host.read_line(20s);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->find('\0'), std::string::npos) << "raw NUL on the wire";
  auto d = parse_strict(*line);
  ASSERT_TRUE(is_call_result(line, false, "1"));
  const auto& text = d["result"]["content"][0]["text"];
  static const char kExpected[] = "a\0b\x01\x1b[0m\t end";
  EXPECT_EQ(std::string(text.GetString(), text.GetStringLength()),
            std::string(kExpected, sizeof kExpected - 1));
}

TEST(Tools, ScriptOwnDescriptorsDoNotBreakACall) {
  // fd_hungry.sh takes fds 3 and 9 and silences its stdout at top level: the call must
  // still get its arguments and its output must still be the result.
  HostProcess host({fixture("fd_hungry.sh")});
  for (int i = 1; i <= 3; ++i) {  // the first calls, and those after them
    host.send(call_request(std::to_string(i), "still_works"));
    auto line = host.read_line(20s);
    ASSERT_TRUE(is_call_result(line, false, std::to_string(i))) << host.stderr_text();
    EXPECT_EQ(result_text(parse_strict(*line)), "still works");
  }
}

TEST(Tools, KilledBySignalIsToldApartFromExitStatus) {
  std::string killed = text_of(kBasic, "kill_self", true);
  EXPECT_NE(killed.find("signal 9"), std::string::npos) << killed;
  EXPECT_NE(killed.find("SIGKILL"), std::string::npos) << killed;
  EXPECT_EQ(killed.find("exit status"), std::string::npos) << killed;

  std::string exited = text_of(kContract, "exit_nine", true);
  EXPECT_NE(exited.find("exit status 9"), std::string::npos) << exited;
  EXPECT_EQ(exited.find("signal"), std::string::npos) << exited;
}

TEST(Tools, SigtermIsNamed) {
  std::string text = text_of(kContract, "term_self", true);
  EXPECT_NE(text.find("SIGTERM"), std::string::npos) << text;
}

TEST(Tools, ToolSeesTheHostMarkerVariable) {
  EXPECT_NE(text_of(kBasic, "env", false), "MCP_SHELL_HOST=unset");
}

TEST(Tools, SchemaViolationIsAnIsErrorNamingTheProperty) {
  std::string text = text_of(kBasic, "sleep", true, R"({"seconds":"two"})");
  EXPECT_NE(text.find("seconds"), std::string::npos) << text;
  std::string missing = text_of(kBasic, "sleep", true, "{}");
  EXPECT_NE(missing.find("seconds"), std::string::npos) << missing;
}

TEST(Tools, ConcurrentCallsAreAnsweredEachWithItsOwnResult) {
  HostProcess host(kBasic);
  for (int i = 0; i < 8; ++i)
    host.send(call_request(std::to_string(i), "echo_args", R"({"i":)" + std::to_string(i) + "}"));
  auto lines = host.read_lines(8, 60s);
  ASSERT_EQ(lines.size(), 8u);
  for (const auto& line : lines) {
    auto d = parse_strict(line);
    ASSERT_TRUE(d.IsObject() && d.HasMember("id")) << line;
    EXPECT_EQ(result_text(d), R"({"i":)" + compact_json(d["id"]) + "}") << line;
  }
}

TEST(Tools, DeeplyNestedStructuredOutputDoesNotCrashTheHost) {
  HostProcess host({"--max-output", "4M", fixture("contract.sh")});
  host.send(call_request("1", "deep_output", R"({"depth":500000})"));
  auto line = host.read_line(60s);
  ASSERT_TRUE(line.has_value()) << "the host died: " << host.stderr_text().substr(0, 2000);
  EXPECT_TRUE(is_call_result(line, /*is_error=*/true, "1"));
  host.send(request("2", "tools/list"));
  EXPECT_TRUE(host.read_line(20s).has_value());
}

// ---- only tools can ever run ------------------------------------------------------------

class OnlyTools : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/mcpsh-marker-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::ofstream(dir_ + "/victim") << "must survive";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  HostOptions env() const { return HostOptions{{{"MCPSH_MARKER_DIR", dir_}}, ""}; }
  bool exists(const std::string& name) const { return std::filesystem::exists(dir_ + "/" + name); }

  std::string dir_;
};

TEST_F(OnlyTools, NamesThatAreNotToolsAreInvalidParamsAndRunNothing) {
  HostProcess host({fixture("marker.sh")}, env());
  // Anything but an advertised tool name: other functions, shell syntax, paths.
  const std::vector<std::string> names = {
      "helper_not_a_tool",
      "not_a_tool",
      "safe; helper_not_a_tool",
      "x; rm -rf \"$MCPSH_MARKER_DIR/victim\"",
      "safe && not_a_tool",
      "safe\nhelper_not_a_tool",
      "$(helper_not_a_tool)",
      "`not_a_tool`",
      "../safe",
      "../../bin/sh",
      "bad:name",
      "",
      "safe ",
      "SAFE",
  };
  int id = 0;
  for (const auto& name : names) {
    rapidjson::Document n(rapidjson::kStringType);
    n.SetString(name.c_str(), n.GetAllocator());
    std::string id_json = std::to_string(++id);
    host.send(
        request(id_json, "tools/call", R"("name":)" + compact_json(n) + R"(,"arguments":{})"));
    EXPECT_TRUE(is_error_response(host.read_line(20s), kInvalidParams, id_json))
        << "name: " << name;
  }
  // The real tool still works, and nothing else ran.
  host.send(call_request("100", "safe"));
  EXPECT_EQ(result_text(next_response(host)), "safe");
  host.close_stdin();
  ASSERT_TRUE(host.wait_exit(20s).has_value());
  EXPECT_FALSE(exists("helper_not_a_tool"));
  EXPECT_FALSE(exists("not_a_tool"));
  EXPECT_FALSE(exists("bad_name"));
  EXPECT_TRUE(exists("victim"));
}

TEST_F(OnlyTools, InvalidFunctionNamesAreNotListed) {
  HostProcess host({fixture("marker.sh")}, env());
  host.send(request("1", "tools/list"));
  auto d = next_response(host);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result"));
  ASSERT_EQ(d["result"]["tools"].Size(), 1u) << compact_json(d);
  EXPECT_STREQ(d["result"]["tools"][0]["name"].GetString(), "safe");
}

}  // namespace
}  // namespace mcpsh::testing
