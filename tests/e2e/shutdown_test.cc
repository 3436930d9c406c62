// Shutdown with a client that stopped reading: the last responses are written with a
// deadline, a signal during that ends the host at once, and SIGHUP and SIGQUIT stop the
// host the way SIGTERM does (every tool group ended, exit 0) instead of killing it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "exec_helpers.h"
#include "flood_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

bool exited_zero(const std::optional<int>& status) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

// Waits (bounded) until the host's log says `text`.
bool log_says(HostProcess& host, const std::string& text, std::chrono::milliseconds timeout = 30s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (host.stderr_text().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// A tool call in flight whose processes carry `tag`; returns once it runs.
void start_sleeper(HostProcess& host, const std::string& tag) {
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  ASSERT_TRUE(await_progress(host, "ready").has_value()) << host.stderr_text();
}

// Sends tools/list requests until the host stops taking them: its output queue is full
// and the client (us) is not reading.
void fill_until_host_stops_reading(HostProcess& host) {
  Flooder flooder(open_host_stdin(host.pid()),
                  [](std::uint64_t n) { return request(std::to_string(n + 100), "tools/list"); });
  while (flooder.bytes_sent() < (64u << 20) && flooder.pump(500ms) > 0) {
  }
}

TEST(Shutdown, SigtermEndsAHostWhoseClientStoppedReading) {
  const std::string tag = unique_tag("stuck-client");
  TagCleanup cleanup(tag);
  HostProcess host({"--kill-grace", "30", tools_script()});
  start_sleeper(host, tag);
  fill_until_host_stops_reading(host);
  host.signal(SIGTERM);
  EXPECT_TRUE(exited_zero(host.wait_exit(30s))) << host.stderr_text();
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Shutdown, SignalDuringTheLastResponsesEndsTheHost) {
  HostProcess host({"--warm", "0", fixture("basic.sh")});
  // ~300 KB of responses: more than the pipe holds, less than the output queue's mark, so
  // the host reads to the end of input and is left writing them.
  for (int i = 1; i <= 200; ++i) host.send(request(std::to_string(i), "tools/list"));
  host.close_stdin();
  ASSERT_TRUE(log_says(host, "stdin closed")) << host.stderr_text();
  host.signal(SIGTERM);
  EXPECT_TRUE(exited_zero(host.wait_exit(30s))) << host.stderr_text();
  EXPECT_NE(host.stderr_text().find("received SIGTERM while writing the last responses"),
            std::string::npos)
      << host.stderr_text();
}

// No signal: the host gives the last responses up once the client took nothing for the
// flush deadline (10 s), rather than staying forever.
TEST(Shutdown, LastResponsesAreGivenUpWhenTheClientTakesNothing) {
  HostProcess host({"--warm", "0", fixture("basic.sh")});
  for (int i = 1; i <= 200; ++i) host.send(request(std::to_string(i), "tools/list"));
  host.close_stdin();
  EXPECT_TRUE(exited_zero(host.wait_exit(60s))) << host.stderr_text();
  EXPECT_NE(host.stderr_text().find("not delivered"), std::string::npos) << host.stderr_text();
}

TEST(Shutdown, ClientThatReadsAfterEndOfInputGetsEveryResponse) {
  HostProcess host({"--warm", "0", fixture("basic.sh")});
  for (int i = 1; i <= 2000; ++i) host.send(request(std::to_string(i), "tools/list"));
  host.close_stdin();
  ASSERT_TRUE(log_says(host, "stdin closed")) << host.stderr_text();
  auto lines = lines_until_eof(host, 60s);
  ASSERT_EQ(lines.size(), 2000u);
  for (int i = 0; i < 2000; i += 97) EXPECT_EQ(id_of(parse(lines[i])), std::to_string(i + 1));
  EXPECT_TRUE(exited_zero(host.wait_exit()));
}

// A signal while responses wait for a client that is still reading: they are written within
// the shutdown grace, not dropped. (A wake-up the stopping left queued for the loop once cut
// this flush off at once.)
TEST(Shutdown, ClientThatReadsAfterASignalGetsTheQueuedResponses) {
  ScratchDir dir;
  HostProcess host({"--warm", "0", tools_script()});
  // ~300 KB of responses, more than the pipe holds; the call after them shows that the host
  // has read and answered every one of them.
  for (int i = 1; i <= 200; ++i) host.send(request(std::to_string(i), "tools/list"));
  host.send(call_request("\"mark\"", "mark", R"({"dir":")" + dir.path + R"(","name":"last"})"));
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!file_exists(dir / "started-last") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  ASSERT_TRUE(file_exists(dir / "started-last")) << host.stderr_text();
  host.signal(SIGTERM);
  auto lines = lines_until_eof(host, 30s);
  std::size_t lists = 0;
  for (const auto& line : lines)
    if (line.find("\"tools\":[") != std::string::npos) ++lists;
  EXPECT_EQ(lists, 200u) << host.stderr_text();
  EXPECT_TRUE(exited_zero(host.wait_exit(30s))) << host.stderr_text();
}

class ShutdownSignal : public ::testing::TestWithParam<int> {};

// SIGHUP (the terminal or the session went away) and SIGQUIT end the host like SIGTERM:
// tools ended, responses already queued written, exit 0, nothing left behind.
TEST_P(ShutdownSignal, EndsTheHostLikeSigterm) {
  const std::string tag = unique_tag("hup-quit");
  TagCleanup cleanup(tag);
  HostProcess host({"--kill-grace", "30", tools_script()});
  start_sleeper(host, tag);
  host.send(request("2", "tools/list"));
  ASSERT_TRUE(await_response(host, "2").has_value());
  host.signal(GetParam());
  auto status = host.wait_exit(30s);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(exited_zero(status)) << (WIFSIGNALED(*status) ? "killed by signal " : "status ")
                                   << (WIFSIGNALED(*status) ? WTERMSIG(*status) : *status);
  const std::string name = GetParam() == SIGHUP ? "SIGHUP" : "SIGQUIT";
  EXPECT_NE(host.stderr_text().find("shutting down: received " + name), std::string::npos)
      << host.stderr_text();
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

INSTANTIATE_TEST_SUITE_P(HupAndQuit, ShutdownSignal, ::testing::Values(SIGHUP, SIGQUIT),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return info.param == SIGHUP ? "SIGHUP" : "SIGQUIT";
                         });

}  // namespace
}  // namespace mcpsh::testing
