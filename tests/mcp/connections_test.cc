// The core serves many connections at once (HTTP will bring them): answers go back on
// the connection a request came on, a call is known by (connection, id), and the legacy
// era belongs to the connection that opened it.
#include <gtest/gtest.h>

#include "core_harness.h"

namespace mcpsh::testing {
namespace {

std::string cancel(const std::string& id) {
  return R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":)" + id +
         "}}";
}

TEST(Connections, TheSameIdOnTwoConnectionsIsTwoCalls) {
  CoreHarness h;
  auto a = h.connect(), b = h.connect();
  h.core->handle(a, modern_call("1", "echo"));
  h.core->handle(b, modern_call("1", "plain"));
  ASSERT_EQ(h.runner.runs.size(), 2u) << "an id in use elsewhere is not in use here";
  EXPECT_TRUE(a->lines.empty());
  EXPECT_TRUE(b->lines.empty());
  h.runner.exit(1, 0, "for b");
  ASSERT_EQ(b->lines.size(), 1u);
  EXPECT_TRUE(a->lines.empty());
  EXPECT_NE(b->lines[0].find("for b"), std::string::npos);
}

TEST(Connections, ACancelReachesOnlyTheCallOfItsOwnConnection) {
  CoreHarness h;
  auto a = h.connect(), b = h.connect();
  h.core->handle(a, modern_call("7", "echo"));
  h.core->handle(b, modern_call("7", "echo"));
  h.core->handle(b, cancel("7"));
  EXPECT_FALSE(h.runner.runs[0].cancelled);
  EXPECT_TRUE(h.runner.runs[1].cancelled);
  h.runner.end_cancelled(1);
  h.runner.exit(0, 0, "a's");
  EXPECT_EQ(a->lines.size(), 1u);
  EXPECT_TRUE(b->lines.empty());
}

TEST(Connections, TheLegacyEraBelongsToItsConnection) {
  CoreHarness h;
  auto a = h.connect(), b = h.connect();
  h.core->handle(a, initialize("1"));
  ASSERT_EQ(a->lines.size(), 1u);
  EXPECT_EQ(error_code(a->lines[0]), 0);
  h.core->handle(a, request("2", "ping", ""));
  h.core->handle(b, request("2", "ping", ""));
  EXPECT_EQ(error_code(a->lines.at(1)), 0);
  EXPECT_EQ(error_code(b->lines.at(0)), -32601);
}

TEST(Connections, ADisconnectedConnectionsCallsAreCancelledAndOthersAreNot) {
  mcp::CoreOptions one;
  one.max_concurrency = 2;
  CoreHarness h(one);
  auto a = h.connect(), b = h.connect();
  h.core->handle(a, modern_call("1", "echo"));
  h.core->handle(b, modern_call("1", "echo"));
  h.core->handle(a, modern_call("2", "echo"));  // queued
  h.core->disconnected(a);
  EXPECT_TRUE(h.runner.runs[0].cancelled);
  EXPECT_FALSE(h.runner.runs[1].cancelled);
  EXPECT_EQ(h.core->calls().queued(), 0u) << "a's queued call is dropped";
  h.runner.end_cancelled(0);
  h.runner.exit(1, 0, "b's");
  EXPECT_EQ(h.runner.runs.size(), 2u);
  EXPECT_TRUE(a->lines.empty());
  EXPECT_EQ(b->lines.size(), 1u);
}

TEST(Connections, AConnectionLivesAsLongAsItsCallsNeedIt) {
  CoreHarness h;
  std::weak_ptr<RecordingConnection> watch;
  {
    auto a = h.connect();
    watch = a;
    h.core->handle(a, modern_call("1", "echo"));
  }
  ASSERT_FALSE(watch.expired()) << "the call in flight holds its connection";
  h.runner.exit(0, 0, "late");
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace mcpsh::testing
