// LegacySessions: the store of initialize-era sessions over HTTP (ADR 0018).
#include "http/legacy_sessions.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <thread>

namespace mcpsh::http {
namespace {

mcp::LegacySession negotiated(const std::string& client) {
  mcp::LegacySession s;
  s.version = "2025-11-25";
  s.client_name = client;
  s.client_capabilities = R"({"elicitation":{}})";
  s.from_initialize = true;
  return s;
}

TEST(LegacySessions, IdsAreRandomHexAndFindGivesTheSessionBack) {
  LegacySessions store;
  std::set<std::string> ids;
  for (int i = 0; i < 100; ++i) {
    const std::string id = store.open(negotiated("c" + std::to_string(i)));
    EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{32}"))) << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 100u);
  const std::string id = store.open(negotiated("ada"));
  auto* found = store.find(id);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->client_name, "ada");
  EXPECT_EQ(found->client_capabilities, R"({"elicitation":{}})");
  EXPECT_EQ(store.find("0123456789abcdef0123456789abcdef"), nullptr);
  EXPECT_EQ(store.find(""), nullptr);
}

TEST(LegacySessions, AFullStoreForgetsTheSessionUsedLongestAgo) {
  LegacySessions store(3);
  const std::string a = store.open(negotiated("a"));
  const std::string b = store.open(negotiated("b"));
  const std::string c = store.open(negotiated("c"));
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  ASSERT_NE(store.find(a), nullptr);  // a is used again: b is now the oldest
  const std::string d = store.open(negotiated("d"));
  EXPECT_EQ(store.size(), 3u);
  EXPECT_EQ(store.find(b), nullptr);
  EXPECT_NE(store.find(a), nullptr);
  EXPECT_NE(store.find(c), nullptr);
  EXPECT_NE(store.find(d), nullptr);
}

TEST(LegacySessions, ASessionWithARequestRunningStaysAndNamesAreCut) {
  LegacySessions store(2, std::chrono::milliseconds(50));
  const std::string busy = store.open(negotiated(std::string(1000, 'n')));
  store.pin(busy);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  const std::string a = store.open(negotiated("a"));
  const std::string b = store.open(negotiated("b"));  // full: a goes, not the pinned one
  EXPECT_EQ(store.find(a), nullptr);
  ASSERT_NE(store.find(busy), nullptr) << "neither expired nor evicted while pinned";
  EXPECT_EQ(store.find(busy)->client_name.size(), LegacySessions::kMaxClientName);
  store.unpin(busy);
  EXPECT_NE(store.find(busy), nullptr) << "the request that ended used it just now";
  EXPECT_NE(store.find(b), nullptr);
}

TEST(LegacySessions, AnIdleSessionIsForgotten) {
  // Kept while it is used more often than the idle time, however slow this machine is (a
  // use is at most 20 ms + the scheduler's delay apart; the idle one waits 15 of them).
  LegacySessions store(10, std::chrono::milliseconds(200));
  const std::string kept = store.open(negotiated("kept"));
  const std::string idle = store.open(negotiated("idle"));
  const auto began = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - began < std::chrono::milliseconds(300)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_NE(store.find(kept), nullptr);  // used: stays
  }
  EXPECT_EQ(store.find(idle), nullptr);
  store.open(negotiated("new"));  // opening also clears out what expired
  EXPECT_EQ(store.size(), 2u);
}

}  // namespace
}  // namespace mcpsh::http
