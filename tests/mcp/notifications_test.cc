// Side-channel events of a running call become notifications only when the request asked
// for them: progress with a progressToken, log messages at or above the requested level.
#include <gtest/gtest.h>

#include "server_harness.h"

namespace mcpsh::testing {
namespace {

execution::ProgressEvent progress(double value, std::optional<double> total = std::nullopt) {
  return {value, total, "step"};
}

std::vector<std::string> notifications(const ServerHarness& h, const std::string& method) {
  std::vector<std::string> out;
  for (const auto& l : h.lines)
    if (method_of(l) == method) out.push_back(l);
  return out;
}

TEST(Notifications, ProgressCarriesTheTokenAndOnlyIncreases) {
  ServerHarness h;
  h.send(modern_call("1", "echo", "{}", R"("progressToken":"tok")"));
  h.runner.event(0, progress(1, 4));
  h.runner.event(0, progress(1, 4));  // not an increase: dropped
  h.runner.event(0, progress(3));
  auto sent = notifications(h, "notifications/progress");
  ASSERT_EQ(sent.size(), 2u);
  auto first = parse(sent[0]);
  EXPECT_STREQ(first["params"]["progressToken"].GetString(), "tok");
  EXPECT_EQ(first["params"]["progress"].GetDouble(), 1);
  EXPECT_EQ(first["params"]["total"].GetDouble(), 4);
  EXPECT_STREQ(first["params"]["message"].GetString(), "step");
  EXPECT_FALSE(parse(sent[1])["params"].HasMember("total"));
  h.runner.exit(0);
  h.runner.runs.clear();
}

TEST(Notifications, NoTokenNoProgress) {
  ServerHarness h;
  h.send(modern_call("1", "echo"));
  h.runner.event(0, progress(1));
  EXPECT_TRUE(notifications(h, "notifications/progress").empty());
}

TEST(Notifications, IntegerTokensAreEchoedAsIntegers) {
  ServerHarness h;
  h.send(modern_call("1", "echo", "{}", R"("progressToken":42)"));
  h.runner.event(0, progress(1));
  auto sent = notifications(h, "notifications/progress");
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(parse(sent[0])["params"]["progressToken"].GetInt(), 42);
}

TEST(Notifications, LogMessagesAtOrAboveTheRequestedLevel) {
  ServerHarness h;
  h.send(modern_call("1", "echo", "{}", R"("io.modelcontextprotocol/logLevel":"warning")"));
  h.runner.event(0, execution::LogEvent{"info", "quiet"});
  h.runner.event(0, execution::LogEvent{"error", "loud"});
  h.runner.event(0, execution::LogEvent{"bogus", "unknown levels count as info"});
  h.runner.event(0, execution::MalformedEvent{"never sent"});
  auto sent = notifications(h, "notifications/message");
  ASSERT_EQ(sent.size(), 1u);
  auto d = parse(sent[0]);
  EXPECT_STREQ(d["params"]["level"].GetString(), "error");
  EXPECT_STREQ(d["params"]["logger"].GetString(), "echo");
  EXPECT_STREQ(d["params"]["data"].GetString(), "loud");
}

TEST(Notifications, NoLevelNoLogMessages) {
  ServerHarness h;
  h.send(modern_call("1", "echo"));
  h.runner.event(0, execution::LogEvent{"emergency", "x"});
  EXPECT_TRUE(notifications(h, "notifications/message").empty());
}

TEST(Notifications, TheLegacyEraUsesTheLevelSetForTheConnection) {
  ServerHarness h;
  h.ask(initialize("1"));
  h.ask(request("2", "logging/setLevel", R"("level":"info")"));
  h.send(request("3", "tools/call", R"("name":"echo","arguments":{})"));
  h.runner.event(0, execution::LogEvent{"notice", "seen"});
  h.runner.event(0, execution::LogEvent{"debug", "unseen"});
  EXPECT_EQ(notifications(h, "notifications/message").size(), 1u);
}

TEST(Notifications, EventsAfterACancelAreDropped) {
  ServerHarness h;
  h.send(modern_call("1", "echo", "{}",
                     R"("progressToken":"t","io.modelcontextprotocol/logLevel":"debug")"));
  h.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})");
  h.runner.event(0, progress(1));
  h.runner.event(0, execution::LogEvent{"error", "x"});
  EXPECT_TRUE(h.lines.empty());
}

}  // namespace
}  // namespace mcpsh::testing
