// Tool calls through the server: the concurrency limit, the FIFO queue, cancellation of
// queued and running calls, ids in use, idle and dequeue notices.
#include <gtest/gtest.h>

#include "server_harness.h"

namespace mcpsh::testing {
namespace {

constexpr int kInvalidRequest = -32600;

mcp::ServerOptions limit(std::size_t n) {
  mcp::ServerOptions o;
  o.max_concurrency = n;
  return o;
}

std::string cancel(const std::string& id) {
  return R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" + id +
         "}}";
}

TEST(Scheduling, CallsBeyondTheLimitWaitAndStartInArrivalOrder) {
  ServerHarness h(limit(2));
  for (int n = 1; n <= 4; ++n)
    EXPECT_TRUE(h.send(modern_call(std::to_string(n), "echo", R"({"n":)" + std::to_string(n) + "}"))
                    .empty());
  ASSERT_EQ(h.runner.runs.size(), 2u);
  EXPECT_EQ(h.server->queued(), 2u);
  EXPECT_EQ(h.server->in_flight(), 4u);
  h.runner.exit(1, 0, "two");
  ASSERT_EQ(h.runner.runs.size(), 3u);
  EXPECT_EQ(h.runner.runs[2].launch.arguments_json, R"({"n":3})");
  h.runner.exit(0, 0, "one");
  ASSERT_EQ(h.runner.runs.size(), 4u);
  EXPECT_EQ(h.runner.runs[3].launch.arguments_json, R"({"n":4})");
  EXPECT_EQ(h.server->queued(), 0u);
  EXPECT_EQ(h.responses_for("2").size(), 1u);
  EXPECT_EQ(h.responses_for("1").size(), 1u);
}

TEST(Scheduling, ACancelledQueuedCallNeverRunsAndIsNeverAnswered) {
  ServerHarness h(limit(1));
  int dequeued = 0, idle = 0;
  h.server->set_on_dequeue([&] { ++dequeued; });
  h.server->set_on_idle([&] { ++idle; });
  h.send(modern_call("1", "echo"));
  h.send(modern_call("2", "echo"));
  dequeued = 0;
  EXPECT_TRUE(h.send(cancel("2")).empty());
  EXPECT_EQ(h.server->queued(), 0u);
  EXPECT_EQ(dequeued, 1);
  h.runner.exit(0);
  EXPECT_EQ(h.runner.runs.size(), 1u) << "the cancelled call must not start";
  EXPECT_TRUE(h.responses_for("2").empty());
  EXPECT_EQ(h.responses_for("1").size(), 1u);
  EXPECT_EQ(idle, 1);
}

TEST(Scheduling, ACancelledRunningCallIsStoppedAndNeverAnswered) {
  ServerHarness h;
  int idle = 0;
  h.server->set_on_idle([&] { ++idle; });
  h.send(modern_call("\"c\"", "echo"));
  h.send(cancel("\"c\""));
  EXPECT_TRUE(h.runner.runs[0].cancelled);
  EXPECT_EQ(h.server->in_flight(), 1u) << "in flight until its processes are gone";
  h.runner.end_cancelled(0);
  EXPECT_TRUE(h.responses_for("\"c\"").empty());
  EXPECT_EQ(h.server->in_flight(), 0u);
  EXPECT_EQ(idle, 1);
  ASSERT_EQ(h.audits.size(), 1u);
  EXPECT_TRUE(h.audits[0].cancelled);
}

TEST(Scheduling, CancellingAnUnknownOrFinishedIdIsIgnored) {
  ServerHarness h;
  h.send(modern_call("1", "echo"));
  h.runner.exit(0);
  EXPECT_TRUE(h.send(cancel("1")).empty());
  EXPECT_TRUE(h.send(cancel("99")).empty());
  EXPECT_EQ(h.responses_for("1").size(), 1u);
}

// Any request that reuses the id of a call in flight is refused the same way, whatever
// its method, so that the call's own response stays the only result for that id.
TEST(Scheduling, AnyRequestReusingTheIdOfACallInFlightIsInvalidRequest) {
  const std::vector<std::string> reuses = {modern_call("5", "plain"), modern("5", "tools/list"),
                                           modern("5", "server/discover"),
                                           modern("5", "no/such/method")};
  for (const auto& reuse : reuses) {
    ServerHarness h;
    h.send(modern_call("5", "echo"));
    auto line = h.ask(reuse);
    EXPECT_EQ(error_code(line), kInvalidRequest) << reuse << " -> " << line;
    EXPECT_EQ(h.runner.runs.size(), 1u);
    h.runner.exit(0, 0, "done");
    auto results = h.responses_for("5");
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(error_code(results[1]), 0) << "the call's own result still comes";
  }
}

TEST(Scheduling, AnIdIsFreeAgainOnceItsCallIsAnsweredAndStringAndIntegerIdsDiffer) {
  ServerHarness h;
  h.send(modern_call("5", "echo"));
  EXPECT_EQ(error_code(h.ask(modern("\"5\"", "tools/list"))), 0);
  h.runner.exit(0);
  EXPECT_EQ(error_code(h.ask(modern("5", "tools/list"))), 0);
}

TEST(Scheduling, StopAllDropsQueuedCallsAndTerminatesRunningOnes) {
  ServerHarness h(limit(1));
  h.send(modern_call("1", "echo"));
  h.send(modern_call("2", "echo"));
  h.server->stop_all(std::chrono::milliseconds(10));
  EXPECT_TRUE(h.runner.terminated);
  EXPECT_EQ(h.server->queued(), 0u);
  h.runner.end(0, [] {
    execution::Outcome o;
    o.ending = execution::Ending::kShutdown;
    return o;
  }());
  EXPECT_EQ(h.runner.runs.size(), 1u);
  EXPECT_TRUE(h.lines.empty()) << "nothing is sent once the host stops";
  EXPECT_EQ(h.server->in_flight(), 0u);
}

TEST(Scheduling, ValidationFailuresAreAnsweredWithoutRunning) {
  ServerHarness h;
  auto line = h.ask(modern_call("1", "echo", R"({"n":"x"})"));
  auto d = parse(line);
  ASSERT_TRUE(d.HasMember("result")) << line;
  EXPECT_TRUE(d["result"]["isError"].GetBool());
  EXPECT_TRUE(h.runner.runs.empty());
  EXPECT_EQ(h.server->in_flight(), 0u);
}

TEST(Scheduling, WarmHintsComeOnceAfterStartWarm) {
  ServerHarness h;
  h.ask(modern("1", "tools/list"));
  EXPECT_TRUE(h.runner.warmed.empty()) << "warm processes only for serve";
  h.server->start_warm();
  h.ask(modern("2", "tools/list"));
  h.ask(modern("3", "tools/list"));
  ASSERT_EQ(h.runner.warmed.size(), 1u);
  EXPECT_EQ(h.runner.warmed[0], (std::vector<std::string>{"/scripts/a.sh", "/scripts/b.sh"}));
  h.server->input_closed();
  EXPECT_TRUE(h.runner.retired);
}

}  // namespace
}  // namespace mcpsh::testing
