// Cancellation: notifications/cancelled terminates a running call's whole process group
// (SIGTERM, SIGKILL after --kill-grace), drops a queued call before it starts, ignores
// ids it does not know, and never answers a cancelled request.
#include <gtest/gtest.h>

#include <fstream>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;
using Clock = std::chrono::steady_clock;

// Closes stdin and reads every remaining line: none may answer `id_json`.
void expect_never_answered(HostProcess& host, const std::string& id_json) {
  host.close_stdin();
  for (const auto& line : lines_until_eof(host)) EXPECT_NE(id_of(parse(line)), id_json) << line;
  EXPECT_EQ(host.wait_exit(), 0);
}

TEST(Cancellation, ToolThatTrapsTermCleansUpAndItsGroupIsGone) {
  ScratchDir dir;
  const std::string tag = unique_tag("trap");
  TagCleanup cleanup(tag);
  HostProcess host({"--kill-grace", "5", tools_script()});
  host.send(call_request("7", "trap_term",
                         R"({"tag":")" + tag + R"(","dir":")" + dir.path + R"("})",
                         progress_meta("70")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  auto pids = ready_pids(*ready);
  ASSERT_TRUE(alive(pids.grandchild));

  host.send(cancel_line("7"));
  EXPECT_TRUE(wait_file(dir / "cleaned")) << "the TERM trap did not run";
  std::ifstream marker(dir / "cleaned");
  std::string text;
  std::getline(marker, text);
  EXPECT_EQ(text, "cleaned");
  EXPECT_TRUE(wait_gone(pids.leader));
  EXPECT_TRUE(wait_gone(pids.grandchild));
  EXPECT_TRUE(wait_no_processes(tag).empty());
  expect_never_answered(host, "7");
}

TEST(Cancellation, ToolThatIgnoresTermIsKilledAfterTheGrace) {
  const std::string tag = unique_tag("ignore");
  TagCleanup cleanup(tag);
  HostProcess host({"--kill-grace", "1", tools_script()});
  host.send(
      call_request(R"("x")", "ignore_term", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  auto pids = ready_pids(*ready);

  auto cancelled_at = Clock::now();
  host.send(cancel_line(R"("x")"));
  ASSERT_TRUE(wait_gone(pids.leader, 15s));
  auto took = Clock::now() - cancelled_at;
  // SIGTERM alone cannot end it: only the SIGKILL at the end of the grace can.
  EXPECT_GE(took, 900ms);
  EXPECT_TRUE(wait_gone(pids.grandchild));
  EXPECT_TRUE(wait_no_processes(tag).empty());
  expect_never_answered(host, R"("x")");
}

TEST(Cancellation, QueuedCallIsDroppedBeforeItStarts) {
  ScratchDir dir;
  HostProcess host({"--max-concurrency", "1", tools_script()});
  const std::string hold = R"({"dir":")" + dir.path + R"(","name":"first"})";
  host.send(call_request("1", "hold", hold, progress_meta("1")));
  ASSERT_TRUE(await_progress(host, "started first")) << host.stderr_text();
  host.send(call_request("2", "mark", R"({"dir":")" + dir.path + R"(","name":"queued"})"));
  host.send(cancel_line("2"));
  // A request after the cancellation: once it is answered, the cancellation was handled.
  host.send(request("3", "tools/list"));
  ASSERT_TRUE(await_response(host, "3"));

  std::ofstream(dir / "release").put('\n');
  auto first = await_response(host, "1");
  ASSERT_TRUE(first);
  EXPECT_EQ(result_text(*first), "released first");
  expect_never_answered(host, "2");
  EXPECT_FALSE(file_exists(dir / "started-queued")) << "the cancelled call ran";
}

TEST(Cancellation, UnknownAndFinishedIdsAreIgnored) {
  HostProcess host({tools_script()});
  host.send(call_request("1", "echo", R"({"a":1})"));
  ASSERT_TRUE(await_response(host, "1"));
  host.send(cancel_line("1"));                                                       // finished
  host.send(cancel_line(R"("nobody")"));                                             // never seen
  host.send(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{}})");  // no id
  host.send(call_request("1", "echo", R"({"a":2})"));  // the id may be used again
  auto again = host.read_line(20s);
  ASSERT_TRUE(again);
  auto d = parse(*again);
  EXPECT_EQ(id_of(d), "1") << *again;
  EXPECT_EQ(result_text(d), R"({"a":2})");
  host.close_stdin();
  EXPECT_TRUE(lines_until_eof(host).empty());
  EXPECT_EQ(host.wait_exit(), 0);
}

TEST(Cancellation, CancellingOneCallLeavesTheOthersAlone) {
  const std::string tag = unique_tag("one-of-two");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  ASSERT_TRUE(await_progress(host, "ready"));
  host.send(call_request("2", "nap", R"({"seconds":1})"));
  host.send(cancel_line("1"));
  auto other = await_response(host, "2");
  ASSERT_TRUE(other);
  EXPECT_EQ(result_text(*other), "napped 1");
  EXPECT_TRUE(wait_no_processes(tag).empty());
  expect_never_answered(host, "1");
}

}  // namespace
}  // namespace mcpsh::testing
