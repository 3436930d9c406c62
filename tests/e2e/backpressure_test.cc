// Backpressure: a client that floods the host, or stops reading its output, cannot grow the
// host's memory. The host stops reading stdin while its output queue is over its mark,
// while --max-queue calls wait for a slot, or while lines read are not yet handled; the
// client's writes then block. Nothing is dropped: once the client reads, every request
// is answered exactly once, in order.
//
// Each flood runs until 1 GiB is sent or MCPSH_FLOOD_SECONDS (default 6) pass, whichever
// comes first; the verdicts do not depend on how far it got. A host without backpressure
// grows past kRunaway within that time, and the flood stops there so the machine is safe.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <thread>

#include "exec_helpers.h"
#include "flood_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

constexpr std::uint64_t kFloodBytes = 1ull << 30;
constexpr long kFlatKiB = 32 << 10;      // allowed growth of the host's RSS
constexpr long kRunawayKiB = 512 << 10;  // a host this much bigger is not bounded: stop

std::chrono::milliseconds flood_time() {
  const char* env = std::getenv("MCPSH_FLOOD_SECONDS");
  return std::chrono::milliseconds(static_cast<long>(1000 * (env ? std::atof(env) : 6.0)));
}

struct FloodRun {
  std::uint64_t bytes = 0;
  double seconds = 0;
  long base_kib = 0, peak_kib = 0;
  bool runaway = false;
  long growth_kib() const { return peak_kib - base_kib; }
};

std::ostream& operator<<(std::ostream& out, const FloodRun& r) {
  return out << r.bytes / 1024 << " KiB sent in " << r.seconds << " s; host RSS "
             << r.base_kib / 1024 << " MiB before, peak " << r.peak_kib / 1024 << " MiB"
             << (r.runaway ? " (runaway: flood stopped)" : "");
}

// Floods until 1 GiB, the time bound, or the host's RSS running away.
FloodRun flood(Flooder& flooder, pid_t host, long base_kib) {
  FloodRun run;
  run.base_kib = base_kib;
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + flood_time();
  while (flooder.bytes_sent() < kFloodBytes && std::chrono::steady_clock::now() < deadline) {
    flooder.pump(50ms);
    if (status_kib(host, "VmRSS") - base_kib > kRunawayKiB) {
      run.runaway = true;
      break;
    }
  }
  run.bytes = flooder.bytes_sent();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.peak_kib = status_kib(host, "VmHWM");  // the kernel's own high-water mark of RSS
  return run;
}

// The host after answering one request, with its resident size then.
long settled_rss(HostProcess& host) {
  host.send(request("0", "tools/list"));
  EXPECT_TRUE(host.read_line(60s).has_value()) << host.stderr_text();
  return status_kib(host.pid(), "VmRSS");
}

// What the client is owed once it reads again: responses to requests sent before the
// flood, to each flood line (unless they are notifications), to a last request.
struct Owed {
  std::uint64_t before = 0;
  bool flood_lines = true;
  std::string last_line;
};

// The client's side once it reads again: one thread finishes the line it was writing (and
// sends the last one) and closes stdin, while this one reads every response until the host
// exits. Checks that the responses carry the ids 1, 2, ... each once, in order, and that
// every request sent was answered.
::testing::AssertionResult client_reads_everything(HostProcess& host, Flooder& flooder,
                                                   const Owed& owed) {
  const std::uint64_t first = 1;
  const std::string& last_line = owed.last_line;
  bool finished = false;
  std::uint64_t sent = 0;
  std::thread writes([&] {
    finished = flooder.finish_line() && (last_line.empty() || flooder.send_line(last_line));
    sent =
        owed.before + (owed.flood_lines ? flooder.lines_sent() : 0) + (last_line.empty() ? 0 : 1);
    flooder.close();
    host.close_stdin();
  });
  std::uint64_t expected = first;
  std::string problem;
  for (const auto& line : lines_until_eof(host, 120s)) {
    auto d = parse(line);
    if (method_of(d) != "") continue;  // progress and other notifications
    if (problem.empty() && id_of(d) != std::to_string(expected))
      problem =
          "expected the response to " + std::to_string(expected) + ", got: " + line.substr(0, 200);
    ++expected;
  }
  writes.join();
  if (!finished) return ::testing::AssertionFailure() << "the host never took the last line";
  if (!problem.empty()) return ::testing::AssertionFailure() << problem;
  if (expected - first != sent)
    return ::testing::AssertionFailure()
           << expected - first << " responses to " << sent << " requests";
  return ::testing::AssertionSuccess() << sent << " requests answered in order";
}

TEST(Backpressure, ClientThatStopsReadingLeavesHostMemoryFlatAndLosesNothing) {
  HostProcess host({"--warm", "0", fixture("basic.sh")}, small_quarantine());
  const long base = settled_rss(host);
  // Each tools/list request (~250 bytes) brings a response of ~1.6 KB that nobody reads.
  Flooder flooder(open_host_stdin(host.pid()),
                  [](std::uint64_t n) { return request(std::to_string(n), "tools/list"); });
  FloodRun run = flood(flooder, host.pid(), base);
  std::cout << "[ figures  ] requests, client not reading: " << run << "\n";
  EXPECT_FALSE(run.runaway) << run;
  EXPECT_LE(run.growth_kib(), kFlatKiB) << run;
  // It stopped reading: about 4 MiB of unread responses (the writer's mark) is ~600 KiB of
  // these requests; the pipe and the lines read ahead add a little.
  EXPECT_LT(run.bytes, 4u << 20) << run;

  // The client reads now: every request it sent is answered, once, in order.
  auto answered = client_reads_everything(host, flooder, Owed{});
  EXPECT_TRUE(answered);
  std::cout << "[ figures  ] " << answered.message() << "\n";
  auto status = host.wait_exit(30s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0);
}

TEST(Backpressure, NotificationFloodPassesThroughWithFlatMemory) {
  HostProcess host({"--warm", "0", fixture("basic.sh")}, small_quarantine());
  const long base = settled_rss(host);
  // Notifications get no response: only the host's own pace slows the client down.
  const std::string pad(64 << 10, 'p');
  Flooder flooder(open_host_stdin(host.pid()), [&](std::uint64_t n) {
    return R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"flood-)" +
           std::to_string(n) + R"(","reason":")" + pad + R"("}})";
  });
  FloodRun run = flood(flooder, host.pid(), base);
  std::cout << "[ figures  ] notifications: " << run << "\n";
  EXPECT_FALSE(run.runaway) << run;
  EXPECT_LE(run.growth_kib(), kFlatKiB) << run;

  // Everything sent was handled, in order: a request after the flood is answered.
  EXPECT_TRUE(client_reads_everything(host, flooder, Owed{0, false, request("1", "tools/list")}));
}

// Calls waiting for a slot are bounded by --max-queue: past it the host stops reading.
TEST(Backpressure, FullCallQueueStopsReadingStdin) {
  ScratchDir dir;
  HostProcess host({"--warm", "0", "--max-concurrency", "1", "--max-queue", "2", tools_script()});
  host.send(call_request("1", "hold", R"({"dir":")" + dir.path + R"(","name":"first"})"));
  ASSERT_TRUE(wait_file(dir / "started-first", 30s)) << host.stderr_text();

  // 4 KiB calls that all wait behind the first: 8 MiB offered.
  const std::string pad(4000, 'p');
  Flooder flooder(open_host_stdin(host.pid()), [&](std::uint64_t n) {
    return call_request(std::to_string(n + 1), "mark",  // ids 2, 3, ...
                        R"({"dir":")" + dir.path + R"(","name":")" + std::to_string(n + 1) +
                            R"(","pad":")" + pad + R"("})");
  });
  while (flooder.bytes_sent() < (8u << 20) && flooder.pump(500ms) > 0) {
  }
  // Taken at most: the pipe, one read buffer, the lines read and not yet handled, the
  // queue. A host without the bound takes everything.
  EXPECT_LT(flooder.bytes_sent(), 1u << 20);

  std::ofstream(dir / "release") << "go";
  // One slot: calls start, and so are answered, in the order they came.
  EXPECT_TRUE(client_reads_everything(host, flooder, Owed{1, true, ""}));
}

}  // namespace
}  // namespace mcpsh::testing
