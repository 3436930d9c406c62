// Concurrency: a slow call delays nothing else, calls beyond --max-concurrency wait their
// turn in order, and every line on stdout is one whole JSON message.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

TEST(Concurrency, SlowCallDelaysNeitherListsNorOtherCalls) {
  const std::string tag = unique_tag("slow");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(
      call_request(R"("slow")", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta(R"("s")")));
  ASSERT_TRUE(await_progress(host, "ready")) << host.stderr_text();

  host.send(request("1", "tools/list"));
  host.send(request("2", "server/discover"));
  host.send(call_request("3", "echo", R"({"x":1})"));
  std::set<std::string> answered;
  for (int i = 0; i < 3; ++i) {
    auto line = host.read_line(20s);
    ASSERT_TRUE(line) << "only " << answered.size() << " answers while a call sleeps";
    auto d = parse(*line);
    ASSERT_TRUE(d.IsObject()) << *line;
    ASSERT_TRUE(d.HasMember("result")) << *line;
    answered.insert(id_of(d));
  }
  EXPECT_EQ(answered, (std::set<std::string>{"1", "2", "3"}));

  host.send(cancel_line(R"("slow")"));
  host.close_stdin();
  for (const auto& line : lines_until_eof(host)) EXPECT_NE(id_of(parse(line)), R"("slow")") << line;
  EXPECT_EQ(host.wait_exit(), 0);
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Concurrency, ResponsesComeInCompletionOrderCorrelatedById) {
  HostProcess host({tools_script()});
  host.send(call_request(R"("late")", "nap", R"({"seconds":1.5})"));
  host.send(call_request(R"("early")", "echo", R"({"n":7})"));
  auto first = parse(host.read_line(20s).value_or(""));
  auto second = parse(host.read_line(20s).value_or(""));
  EXPECT_EQ(id_of(first), R"("early")");
  EXPECT_EQ(result_text(first), R"({"n":7})");
  EXPECT_EQ(id_of(second), R"("late")");
  EXPECT_EQ(result_text(second), "napped 1.5");
}

TEST(Concurrency, CallsBeyondTheLimitWaitAndRunInOrder) {
  ScratchDir dir;
  HostProcess host({"--max-concurrency", "2", tools_script()});
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  for (const auto& n : names)
    host.send(call_request(quoted(n), "hold",
                           R"({"dir":")" + dir.path + R"(","name":")" + n + R"("})",
                           progress_meta(quoted(n))));

  // Two start; the other two must not, however long we wait.
  std::vector<std::string> transcript;
  std::set<std::string> started;
  for (int i = 0; i < 2; ++i) {
    auto message = await_progress(host, "started", &transcript);
    ASSERT_TRUE(message) << host.stderr_text();
    started.insert(message->substr(8));
  }
  EXPECT_EQ(started, (std::set<std::string>{"a", "b"}));
  EXPECT_TRUE(host.silent_for(700ms));
  EXPECT_FALSE(file_exists(dir / "started-c"));
  EXPECT_FALSE(file_exists(dir / "started-d"));

  // Calls are let go one at a time, so that each freed slot is seen going to the oldest
  // waiting call (two slots freed at once start two calls whose reports race). At no point
  // may more than two calls have started and not been answered.
  std::ofstream(dir / "release-a").put('\n');
  int running = 2, most = 2;
  std::vector<std::string> order;
  std::set<std::string> answered;
  while (answered.size() < names.size()) {
    auto line = host.read_line(20s);
    ASSERT_TRUE(line) << "answered " << answered.size();
    auto d = parse(*line);
    ASSERT_TRUE(d.IsObject()) << *line;
    if (method_of(d) == "notifications/progress") {
      std::string name = std::string(d["params"]["message"].GetString()).substr(8);
      order.push_back(name);
      most = std::max(most, ++running);
      if (order.size() == 1) std::ofstream(dir / "release-b").put('\n');
      if (order.size() == 2) std::ofstream(dir / "release").put('\n');
    } else {
      ASSERT_TRUE(d.HasMember("result")) << *line;
      EXPECT_EQ(result_text(d), std::string("released ") + d["id"].GetString());
      answered.insert(id_of(d));
      --running;
    }
  }
  EXPECT_EQ(most, 2);
  EXPECT_EQ(order, (std::vector<std::string>{"c", "d"}));  // FIFO
}

TEST(Concurrency, EveryLineIsOneWholeMessage) {
  HostProcess host({"--max-concurrency", "8", tools_script()});
  constexpr int kCalls = 40;
  for (int i = 0; i < kCalls; ++i)
    host.send(
        call_request(std::to_string(i), "chatty", "{}", progress_meta(std::to_string(1000 + i))));
  std::map<std::string, int> progress_per_token;
  std::set<std::string> answered;
  while (answered.size() < kCalls) {
    auto line = host.read_line(30s);
    ASSERT_TRUE(line) << "answered " << answered.size() << " of " << kCalls;
    auto d = parse(*line);
    ASSERT_FALSE(d.HasParseError()) << line->substr(0, 200);
    ASSERT_TRUE(d.IsObject());
    if (method_of(d) == "notifications/progress") {
      std::string token = compact(d["params"]["progressToken"]);
      EXPECT_FALSE(answered.count(std::to_string(std::stoi(token) - 1000)))
          << "progress after response";
      ++progress_per_token[token];
      continue;
    }
    EXPECT_EQ(result_text(d), std::string(100000, 'y'));
    EXPECT_TRUE(answered.insert(id_of(d)).second) << "answered twice: " << id_of(d);
  }
  EXPECT_EQ(progress_per_token.size(), static_cast<std::size_t>(kCalls));
  for (const auto& [token, n] : progress_per_token) EXPECT_EQ(n, 3) << token;
}

}  // namespace
}  // namespace mcpsh::testing
