// Progress and logs: mcp_progress becomes notifications/progress for the request's token
// (strictly increasing, never after the response, nothing without a token); a silent
// call with a token gets heartbeats; mcp_log becomes notifications/message only when the
// request set a log level and at or above it, and goes to the host's log otherwise.
#include <gtest/gtest.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

struct Transcript {
  std::vector<rapidjson::Document> before;  // everything before the response
  std::optional<rapidjson::Document> response;
  std::vector<std::string> after;  // everything after it, up to EOF
};

// Sends one request, closes stdin, and reads everything the host writes until it exits.
Transcript run_one(HostProcess& host, const std::string& line, const std::string& id_json) {
  Transcript t;
  host.send(line);
  host.close_stdin();
  for (auto& text : lines_until_eof(host)) {
    auto d = parse(text);
    EXPECT_TRUE(d.IsObject()) << text;
    if (t.response) {
      t.after.push_back(text);
    } else if (!d.HasMember("method") && id_of(d) == id_json) {
      t.response = std::move(d);
    } else {
      t.before.push_back(std::move(d));
    }
  }
  EXPECT_EQ(host.wait_exit(), 0);
  return t;
}

std::vector<const rapidjson::Document*> with_method(const Transcript& t,
                                                    const std::string& method) {
  std::vector<const rapidjson::Document*> found;
  for (const auto& d : t.before)
    if (method_of(d) == method) found.push_back(&d);
  return found;
}

class ProgressTokens : public ::testing::TestWithParam<const char*> {};

TEST_P(ProgressTokens, ReportsBecomeNotificationsForThatToken) {
  const std::string token = GetParam();
  HostProcess host({tools_script()});
  auto t = run_one(host, call_request("1", "progress", "{}", progress_meta(token)), "1");
  ASSERT_TRUE(t.response);
  EXPECT_EQ(result_text(*t.response), "done");
  EXPECT_TRUE(t.after.empty()) << t.after.front();
  auto progress = with_method(t, "notifications/progress");
  ASSERT_EQ(progress.size(), 3u) << "a repeated and a decreasing value must be dropped";
  const std::vector<std::string> messages = {"one", "two", "three"};
  double last = -1;
  for (std::size_t i = 0; i < progress.size(); ++i) {
    const auto& p = (*progress[i])["params"];
    EXPECT_EQ(compact(p["progressToken"]), token);
    EXPECT_GT(p["progress"].GetDouble(), last);
    last = p["progress"].GetDouble();
    EXPECT_EQ(p["total"].GetDouble(), 3);
    EXPECT_EQ(std::string(p["message"].GetString()), messages[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(StringAndInteger, ProgressTokens, ::testing::Values(R"("tok-1")", "42"),
                         [](const auto& info) {
                           return info.param[0] == '"' ? "string" : "integer";
                         });

TEST(ProgressLog, WithoutATokenNothingIsSent) {
  HostProcess host({tools_script()});
  auto t = run_one(host, call_request("1", "progress"), "1");
  ASSERT_TRUE(t.response);
  EXPECT_TRUE(t.before.empty());
  EXPECT_TRUE(t.after.empty());
}

TEST(ProgressLog, SilentCallWithATokenGetsHeartbeats) {
  HostProcess host({"--heartbeat", "0.3", tools_script()});
  auto t =
      run_one(host, call_request("1", "nap", R"({"seconds":1.5})", progress_meta(R"("hb")")), "1");
  ASSERT_TRUE(t.response);
  EXPECT_EQ(result_text(*t.response), "napped 1.5");
  EXPECT_TRUE(t.after.empty());
  auto beats = with_method(t, "notifications/progress");
  EXPECT_GE(beats.size(), 2u);
  double last = -1;
  for (const auto* d : beats) {
    const auto& p = (*d)["params"];
    EXPECT_EQ(compact(p["progressToken"]), R"("hb")");
    EXPECT_GT(p["progress"].GetDouble(), last) << "heartbeats must increase too";
    last = p["progress"].GetDouble();
  }
}

TEST(ProgressLog, SilentCallWithoutATokenGetsNoHeartbeat) {
  HostProcess host({"--heartbeat", "0.3", tools_script()});
  auto t = run_one(host, call_request("1", "nap", R"({"seconds":1})"), "1");
  ASSERT_TRUE(t.response);
  EXPECT_TRUE(t.before.empty());
}

TEST(ProgressLog, LogLinesAtOrAboveTheRequestedLevelBecomeMessages) {
  HostProcess host({tools_script()});
  auto t = run_one(
      host, call_request("1", "logs", "{}", R"("io.modelcontextprotocol/logLevel":"warning")"),
      "1");
  ASSERT_TRUE(t.response);
  EXPECT_EQ(result_text(*t.response), "logged");
  auto messages = with_method(t, "notifications/message");
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(std::string((*messages[0])["params"]["level"].GetString()), "warning");
  EXPECT_EQ(std::string((*messages[0])["params"]["data"].GetString()), "w-message");
  EXPECT_EQ(std::string((*messages[0])["params"]["logger"].GetString()), "logs");
  EXPECT_EQ(std::string((*messages[1])["params"]["level"].GetString()), "error");
  EXPECT_EQ(std::string((*messages[1])["params"]["data"].GetString()), "e-message");
  // Below the level: the host's own log, tagged with the request and the tool.
  const std::string log = host.stderr_text();
  EXPECT_NE(log.find("[1 logs] info: i-message"), std::string::npos) << log;
  EXPECT_NE(log.find("[1 logs] debug: d-message"), std::string::npos) << log;
  EXPECT_EQ(log.find("w-message"), std::string::npos) << "sent to the client, not logged";
}

TEST(ProgressLog, WithoutALogLevelLogLinesGoToTheHostLogOnly) {
  HostProcess host({tools_script()});
  auto t = run_one(host, call_request("1", "logs"), "1");
  ASSERT_TRUE(t.response);
  EXPECT_TRUE(with_method(t, "notifications/message").empty());
  const std::string log = host.stderr_text();
  for (const char* m : {"d-message", "i-message", "w-message", "e-message"})
    EXPECT_NE(log.find(m), std::string::npos) << m << " missing from " << log;
}

}  // namespace
}  // namespace mcpsh::testing
