// Lifecycle: stdin EOF lets calls in flight finish and be answered; SIGTERM, SIGINT, a
// closed stdout or a client that vanishes end every tool group and the host promptly; no
// process the host started outlives it, not even when the host is killed with SIGKILL
// (direct children by PR_SET_PDEATHSIG, the rest by the watchdog).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> children;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    std::ifstream in(task.path() / "children");
    for (pid_t child; in >> child;) children.push_back(child);
  }
  return children;
}

bool exited_zero(const std::optional<int>& status) {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

TEST(Lifecycle, EndOfInputLetsCallsInFlightFinishAndBeAnswered) {
  HostProcess host({tools_script()});
  host.send(call_request("1", "nap", R"({"seconds":1})"));
  host.send(call_request("2", "nap", R"({"seconds":0.5})"));
  host.send(call_request("3", "echo", R"({"k":3})"));
  host.close_stdin();
  std::set<std::string> answered;
  for (const auto& line : lines_until_eof(host, 30s)) {
    auto d = parse(line);
    ASSERT_TRUE(d.IsObject()) << line;
    EXPECT_FALSE(is_error_result(d)) << line;
    answered.insert(id_of(d));
  }
  EXPECT_EQ(answered, (std::set<std::string>{"1", "2", "3"}));
  EXPECT_TRUE(exited_zero(host.wait_exit()));
}

class LifecycleSignal : public ::testing::TestWithParam<int> {};

TEST_P(LifecycleSignal, EndsEveryToolGroupAndExits) {
  const std::string tag = unique_tag("signal");
  TagCleanup cleanup(tag);
  ScratchDir dir;
  HostProcess host({"--max-concurrency", "2", "--kill-grace", "30", tools_script()});
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  host.send(call_request("2", "ignore_term", R"({"tag":")" + tag + R"("})", progress_meta("2")));
  auto stubborn = await_progress(host, "ready");
  ASSERT_TRUE(stubborn);
  host.send(call_request("3", "mark", R"({"dir":")" + dir.path + R"(","name":"queued"})"));
  host.send(request("4", "tools/list"));
  ASSERT_TRUE(await_response(host, "4"));

  host.signal(GetParam());
  // A tool that ignores SIGTERM gets the shutdown grace (at most 1 s), not --kill-grace.
  auto status = host.wait_exit(15s);
  ASSERT_TRUE(status) << "the host did not exit";
  EXPECT_TRUE(exited_zero(status));
  for (const auto& line : lines_until_eof(host, 2s))
    ADD_FAILURE() << "sent after the signal: " << line;
  for (auto* p : {&*ready, &*stubborn}) {
    auto pids = ready_pids(*p);
    EXPECT_TRUE(wait_gone(pids.leader));
    EXPECT_TRUE(wait_gone(pids.grandchild));
  }
  EXPECT_TRUE(wait_no_processes(tag).empty());
  EXPECT_FALSE(file_exists(dir / "started-queued")) << "a queued call started during shutdown";
  EXPECT_NE(host.stderr_text().find("shutting down"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(TermAndInt, LifecycleSignal, ::testing::Values(SIGTERM, SIGINT),
                         [](const auto& info) {
                           return info.param == SIGTERM ? "SIGTERM" : "SIGINT";
                         });

TEST(Lifecycle, ClosedStdoutEndsEveryToolGroupAndExits) {
  const std::string tag = unique_tag("stdout-closed");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  host.close_stdout();
  auto status = host.wait_exit(15s);
  ASSERT_TRUE(status) << "the host did not notice its stdout was closed";
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_TRUE(wait_gone(ready_pids(*ready).leader));
  EXPECT_TRUE(wait_no_processes(tag).empty());
  EXPECT_NE(host.stderr_text().find("closed stdout"), std::string::npos) << host.stderr_text();
}

TEST(Lifecycle, ClientThatVanishesLeavesNothingBehind) {
  const std::string tag = unique_tag("vanish");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  const auto children = children_of(host.pid());
  EXPECT_FALSE(children.empty());
  // Both pipes at once, as when the client process is killed.
  host.close_stdin();
  host.close_stdout();
  auto status = host.wait_exit(15s);
  ASSERT_TRUE(status) << "the host outlived its client";
  for (pid_t child : children) EXPECT_TRUE(wait_gone(child)) << "child " << child;
  EXPECT_TRUE(wait_gone(ready_pids(*ready).grandchild));
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Lifecycle, HostKilledWithSigkillLeavesNothingBehind) {
  const std::string tag = unique_tag("sigkill");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  auto pids = ready_pids(*ready);
  // And one that left its process group and session, still running when the host dies.
  host.send(
      call_request("2", "escape_and_stay", R"({"tag":")" + tag + R"("})", progress_meta("2")));
  auto escaped = await_progress(host, "ready");
  ASSERT_TRUE(escaped);
  const pid_t escapee = ready_pids(*escaped).grandchild;
  ASSERT_EQ(::getsid(ready_pids(*escaped).leader), ready_pids(*escaped).leader);
  ASSERT_NE(::getsid(escapee), ::getsid(pids.leader)) << "the escapee did not leave";
  const auto children = children_of(host.pid());
  ASSERT_FALSE(children.empty());

  host.signal(SIGKILL);
  ASSERT_TRUE(host.wait_exit(10s));
  // Direct children (the tools' bash, bash processes started ahead): PR_SET_PDEATHSIG.
  for (pid_t child : children) EXPECT_TRUE(wait_gone(child)) << "child " << child;
  EXPECT_TRUE(wait_gone(pids.leader));
  // Grandchildren and the escapee: the watchdog, which saw the host's pipe close.
  EXPECT_TRUE(wait_gone(pids.grandchild)) << "a grandchild outlived the host";
  EXPECT_TRUE(wait_gone(escapee)) << "an escapee outlived the host";
  EXPECT_TRUE(wait_no_processes(tag).empty()) << "a process outlived the host";
}

}  // namespace
}  // namespace mcpsh::testing
