// Heartbeats: a call whose request carried a progressToken and that reports nothing for
// `heartbeat` gets a progress notification saying it is still running. Time is manual.
#include <gtest/gtest.h>

#include "core_harness.h"

namespace mcpsh::testing {
namespace {

using std::chrono::milliseconds;

mcp::CoreOptions every(milliseconds beat) {
  mcp::CoreOptions o;
  o.heartbeat = beat;
  return o;
}

TEST(Heartbeat, ASilentCallGetsOneBeatPerPeriodWithIncreasingProgress) {
  CoreHarness h(every(milliseconds(5000)));
  auto c = h.connect();
  h.core->handle(c, modern_call("1", "echo", "{}", R"("progressToken":"t")"));
  h.time.advance(milliseconds(4999));
  EXPECT_TRUE(c->lines.empty());
  h.time.advance(milliseconds(1));
  auto beats = with_method(c->lines, "notifications/progress");
  ASSERT_EQ(beats.size(), 1u);
  auto first = parse(beats[0]);
  EXPECT_STREQ(first["params"]["progressToken"].GetString(), "t");
  EXPECT_EQ(first["params"]["progress"].GetDouble(), 0);
  EXPECT_NE(std::string(first["params"]["message"].GetString()).find("still running (5 s)"),
            std::string::npos);
  h.time.advance(milliseconds(5000));
  beats = with_method(c->lines, "notifications/progress");
  ASSERT_EQ(beats.size(), 2u);
  EXPECT_GT(parse(beats[1])["params"]["progress"].GetDouble(), 0);
}

TEST(Heartbeat, AProgressReportPostponesTheNextBeat) {
  CoreHarness h(every(milliseconds(5000)));
  auto c = h.connect();
  h.core->handle(c, modern_call("1", "echo", "{}", R"("progressToken":"t")"));
  h.time.advance(milliseconds(3000));
  h.runner.event(0, execution::ProgressEvent{2, 10, "two"});
  h.time.advance(milliseconds(2000));  // 5 s after the start, 2 s after the report
  EXPECT_EQ(with_method(c->lines, "notifications/progress").size(), 1u);
  h.time.advance(milliseconds(3000));  // 5 s after the report
  auto beats = with_method(c->lines, "notifications/progress");
  ASSERT_EQ(beats.size(), 2u);
  auto beat = parse(beats[1]);
  EXPECT_GT(beat["params"]["progress"].GetDouble(), 2);
  EXPECT_EQ(beat["params"]["total"].GetDouble(), 10);
}

TEST(Heartbeat, NoTokenNoBeat) {
  CoreHarness h(every(milliseconds(5000)));
  auto c = h.connect();
  h.core->handle(c, modern_call("1", "echo"));
  EXPECT_FALSE(h.time.armed());
  h.time.advance(milliseconds(60000));
  EXPECT_TRUE(c->lines.empty());
}

TEST(Heartbeat, NoBeatAfterTheCallEndsOrIsCancelled) {
  CoreHarness h(every(milliseconds(5000)));
  auto c = h.connect();
  h.core->handle(c, modern_call("1", "echo", "{}", R"("progressToken":"t")"));
  h.core->handle(c, modern_call("2", "echo", "{}", R"("progressToken":"u")"));
  h.runner.exit(0);
  h.core->handle(
      c, R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}})");
  h.time.advance(milliseconds(60000));
  EXPECT_TRUE(with_method(c->lines, "notifications/progress").empty());
}

TEST(Heartbeat, AWakeAfterTheCoreIsGoneDoesNothing) {
  CoreHarness h(every(milliseconds(5000)));
  auto c = h.connect();
  h.core->handle(c, modern_call("1", "echo", "{}", R"("progressToken":"t")"));
  ASSERT_TRUE(h.time.armed());
  h.core.reset();
  h.time.advance(milliseconds(5000));  // AddressSanitizer reports a use after free, if any
  EXPECT_TRUE(c->lines.empty());
}

}  // namespace
}  // namespace mcpsh::testing
