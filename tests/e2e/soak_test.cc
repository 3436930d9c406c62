// Soak: thousands of mixed requests pipelined into one host with --max-concurrency 8 —
// calls that succeed, fail, time out, are cancelled, print too much; lists; unknown
// tools; invalid params; malformed lines. Every request that was not cancelled is answered exactly
// once, no cancelled one is answered, no process is left, and the host's descriptors and memory
// come back to where they were.
#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;
using Clock = std::chrono::steady_clock;

constexpr int kRequests = 2400;

struct Plan {
  std::vector<std::string> lines;
  std::vector<bool> expects_answer;     // per line: an answer will come (with or without id)
  std::set<std::string> answered_ids;   // must be answered exactly once
  std::set<std::string> cancelled_ids;  // must never be answered
  int without_id = 0;                   // malformed lines: answered with no id
  void add(std::string line, bool answered) {
    lines.push_back(std::move(line));
    expects_answer.push_back(answered);
  }
};

// A deterministic mix; ids are strings "r<n>" so they never collide with numbers.
Plan make_plan(int first, int count, unsigned seed) {
  Plan plan;
  std::mt19937 random(seed);
  for (int n = first; n < first + count; ++n) {
    const std::string id = "\"r" + std::to_string(n) + "\"";
    const int pick = static_cast<int>(random() % 100);
    if (pick < 22) {
      plan.add(call_request(id, "echo", R"({"n":)" + std::to_string(n) + "}"), true);
    } else if (pick < 30) {
      plan.add(call_request(id, "fail"), true);
    } else if (pick < 48) {
      plan.add(request(id, "tools/list"), true);
    } else if (pick < 56) {
      plan.add(request(id, "server/discover"), true);
    } else if (pick < 60) {
      plan.add(call_request(id, "flood", R"({"bytes":20000})"), true);
    } else if (pick < 68) {
      plan.add(call_request(id, "no_such_tool"), true);
    } else if (pick < 72) {
      plan.add(request(id, "tools/call", R"("name":"echo","arguments":[1])"), true);
    } else if (pick < 74) {
      plan.add(call_request(id, "nap", R"({"seconds":3})"), true);  // times out
    } else if (pick < 80) {
      plan.add(call_request(id, "nap", R"({"seconds":3})"), false);
      plan.add(cancel_line(id), false);
      plan.cancelled_ids.insert(id);
      continue;
    } else if (pick < 94) {
      plan.add(pick % 2 ? R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":)"
                        : std::string("not json at all ") + std::to_string(n),
               true);
      ++plan.without_id;
      continue;
    } else {
      plan.add(call_request(id, "progress", "{}", progress_meta(id)), true);
    }
    plan.answered_ids.insert(id);
  }
  return plan;
}

struct Tally {
  std::map<std::string, int> responses;
  int without_id = 0;
  int timed_out = 0, failed = 0, truncated = 0, rpc_errors = 0;
};

// At most this many answers outstanding while pipelining: 32 times --max-concurrency,
// so the FIFO queue is always full, while the peak memory of the warm-up and of the
// soak proper are alike and their RSS can be compared.
constexpr int kWindow = 256;

// Sends the plan from a thread of its own while reading every line, until all expected
// answers are in.
::testing::AssertionResult run_plan(HostProcess& host, const Plan& plan, Tally& tally) {
  std::mutex mutex;
  std::condition_variable more;
  int sent = 0, received = 0;
  bool stop = false;
  std::thread writer([&] {
    for (std::size_t i = 0; i < plan.lines.size(); ++i) {
      {
        std::unique_lock lock(mutex);
        more.wait(lock, [&] { return stop || sent - received < kWindow; });
        if (stop) return;
        if (plan.expects_answer[i]) ++sent;
      }
      host.send(plan.lines[i]);
    }
  });
  auto got_one = [&] {
    std::lock_guard lock(mutex);
    ++received;
    more.notify_all();
  };
  const std::size_t expected = plan.answered_ids.size();
  std::size_t answered = 0;
  int malformed_answers = 0;
  std::string problem;
  while (answered < expected || malformed_answers < plan.without_id) {
    auto line = host.read_line(60s);
    if (!line) {
      problem = "stalled after " + std::to_string(answered) + " of " + std::to_string(expected) +
                " answers";
      break;
    }
    auto d = parse(*line);
    if (!d.IsObject()) {
      problem = "not a JSON object: " + line->substr(0, 200);
      break;
    }
    if (d.HasMember("method")) continue;  // progress notifications
    got_one();
    if (!d.HasMember("id")) {
      ++malformed_answers;
      ++tally.without_id;
      continue;
    }
    const std::string id = id_of(d);
    if (++tally.responses[id] == 1 && plan.answered_ids.count(id)) ++answered;
    if (d.HasMember("error")) ++tally.rpc_errors;
    const bool has_text = d.HasMember("result") && d["result"].HasMember("content");
    const std::string text = has_text ? result_text(d) : "";
    if (is_error_result(d)) {
      ++tally.failed;
      if (text.find("timed out") != std::string::npos) ++tally.timed_out;
    }
    if (text.find("output truncated") != std::string::npos) ++tally.truncated;
  }
  {
    std::lock_guard lock(mutex);
    stop = true;
    more.notify_all();
  }
  writer.join();
  if (!problem.empty()) return ::testing::AssertionFailure() << problem;
  return ::testing::AssertionSuccess();
}

long rss_kib(pid_t pid) { return status_kib(pid, "VmRSS"); }

TEST(Soak, ThousandsOfMixedRequestsLeaveNothingBehind) {
  // AddressSanitizer keeps freed memory in quarantine (up to 256 MB) and returns free
  // pages to the system only now and then: RSS would measure that, not the host. A small
  // quarantine and prompt release keep its checks and make RSS meaningful. (Ignored by a
  // build without sanitizers.)
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string asan_options = std::string(asan ? asan : "") + (asan && *asan ? ":" : "") +
                                   "quarantine_size_mb=4:thread_local_quarantine_size_kb=64:"
                                   "allocator_release_to_os_interval_ms=100";
  HostProcess host({"--max-concurrency", "8", "--timeout", "0.5", "--kill-grace", "0.2",
                    "--max-output", "4k", tools_script()},
                   HostOptions{{{"ASAN_OPTIONS", asan_options}}, ""});

  // Warm-up: allocator arenas, warm processes, Asio's internals reach their working size.
  Tally warm_tally;
  ASSERT_TRUE(run_plan(host, make_plan(0, 600, 1), warm_tally));
  const int fds_before = quiescent_fd_count(host, 2);  // --warm's default: 2 ready processes
  ASSERT_GE(fds_before, 0) << "the host did not settle after the warm-up";
  std::this_thread::sleep_for(300ms);  // let the allocator hand back what it freed
  const long rss_before = rss_kib(host.pid());

  const auto start = Clock::now();
  Plan plan = make_plan(1000, kRequests, 2);
  Tally tally;
  ASSERT_TRUE(run_plan(host, plan, tally)) << host.stderr_text().substr(0, 4000);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);

  // Every non-cancelled request exactly once; no cancelled one at all.
  for (const auto& id : plan.answered_ids) EXPECT_EQ(tally.responses[id], 1) << id;
  for (const auto& id : plan.cancelled_ids) EXPECT_EQ(tally.responses.count(id), 0u) << id;
  for (const auto& [id, n] : tally.responses)
    EXPECT_TRUE(plan.answered_ids.count(id)) << "answer to an id never asked: " << id;
  EXPECT_EQ(tally.without_id, plan.without_id);
  EXPECT_GT(tally.timed_out, 0);
  EXPECT_GT(tally.truncated, 0);

  // Nothing left running but the bash processes kept ready for the next calls.
  auto settle_deadline = Clock::now() + 10s;
  std::vector<pid_t> left = tool_processes_of(host.pid());
  while (left.size() > 2 && Clock::now() < settle_deadline) {
    std::this_thread::sleep_for(50ms);
    left = tool_processes_of(host.pid());
  }
  EXPECT_LE(left.size(), 2u) << "processes left after the soak";

  const int fds_after = settled_fd_count(host.pid(), fds_before);
  std::this_thread::sleep_for(300ms);
  const long rss_after = rss_kib(host.pid());
  std::cout << "soak: " << plan.lines.size() << " lines (" << plan.answered_ids.size()
            << " answered, " << plan.cancelled_ids.size() << " cancelled, " << plan.without_id
            << " malformed; " << tally.timed_out << " timed out, " << tally.failed << " isError, "
            << tally.truncated << " truncated, " << tally.rpc_errors << " JSON-RPC errors) in "
            << took.count() << " ms; fds " << fds_before << " -> " << fds_after << "; VmRSS "
            << rss_before << " -> " << rss_after << " KiB\n";
  RecordProperty("soak_ms", static_cast<int>(took.count()));
  RecordProperty("fds_before", fds_before);
  RecordProperty("fds_after", fds_after);
  RecordProperty("rss_before_kib", static_cast<int>(rss_before));
  RecordProperty("rss_after_kib", static_cast<int>(rss_after));
  EXPECT_EQ(fds_after, fds_before);
  EXPECT_LT(rss_after, rss_before + 8 * 1024) << "the host's memory grew with the requests";

  host.close_stdin();
  lines_until_eof(host, 30s);
  EXPECT_EQ(host.wait_exit(30s), 0);
  EXPECT_TRUE(tool_processes_of(host.pid()).empty()) << "processes outlived the host";
}

}  // namespace
}  // namespace mcpsh::testing
