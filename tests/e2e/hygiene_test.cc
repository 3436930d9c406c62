// Process hygiene: every call in its own process group; nothing a tool started outlives
// it, not even a descendant that left the group; no descriptor of the host or of another
// call leaks into a tool; exit status and death by signal are told apart; a tool that
// cannot start is an isError result, not a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

class HygieneWarmAndCold : public ::testing::TestWithParam<const char*> {};

TEST_P(HygieneWarmAndCold, EachCallRunsInItsOwnProcessGroup) {
  HostProcess host({"--warm", GetParam(), tools_script()});
  const pid_t host_group = ::getpgid(host.pid());
  constexpr int kCalls = 4;
  for (int i = 0; i < kCalls; ++i) host.send(call_request(std::to_string(i), "ids"));
  std::set<pid_t> groups;
  for (int i = 0; i < kCalls; ++i) {
    auto d = parse(host.read_line(20s).value_or(""));
    ASSERT_TRUE(d.IsObject());
    std::istringstream in(result_text(d));
    pid_t pid = 0, group = 0;
    ASSERT_TRUE(in >> pid >> group) << result_text(d);
    EXPECT_EQ(pid, group) << "the tool's bash must lead its own group";
    EXPECT_NE(group, host_group);
    groups.insert(group);
  }
  EXPECT_EQ(groups.size(), static_cast<std::size_t>(kCalls));
}

TEST_P(HygieneWarmAndCold, DescriptorsNeverLeakIntoTools) {
  HostProcess host({"--warm", GetParam(), "--max-concurrency", "8", tools_script()});
  host.send(request("0", "tools/list"));
  host.send(call_request("100", "echo"));
  ASSERT_TRUE(await_response(host, "100"));
  const int before = quiescent_fd_count(host, std::stoul(GetParam()));
  ASSERT_GE(before, 0) << "the host did not settle";
  constexpr int kCalls = 8;  // all at once (the tool waits for the others): each sees their pipes
  ScratchDir dir;
  const std::string args =
      R"({"dir":")" + dir.path + R"(","count":)" + std::to_string(kCalls) + "}";
  for (int i = 1; i <= kCalls; ++i) host.send(call_request(std::to_string(i), "list_fds", args));
  for (int i = 1; i <= kCalls; ++i) {
    auto d = parse(host.read_line(20s).value_or(""));
    ASSERT_TRUE(d.IsObject());
    // 0-2, the channel on 4, and 3: the directory ls itself opened (fd 3 of the
    // bootstrap is closed before the tool runs).
    EXPECT_EQ(result_text(d), "0\n1\n2\n3\n4") << "call " << id_of(d);
  }
  EXPECT_EQ(settled_fd_count(host.pid(), before), before);
}

INSTANTIATE_TEST_SUITE_P(Warm, HygieneWarmAndCold, ::testing::Values("0", "2"));

TEST(Hygiene, BackgroundChildrenDieWithTheTool) {
  const std::string tag = unique_tag("orphan");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(call_request("1", "orphan", R"({"tag":")" + tag + R"("})"));
  auto response = await_response(host, "1");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response));
  pid_t child = std::stoi(result_text(*response).substr(5));
  EXPECT_TRUE(wait_gone(child));
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Hygiene, EscapeeHoldingStdoutCannotHangTheCallAndIsKilled) {
  const std::string tag = unique_tag("escape");
  TagCleanup cleanup(tag);
  HostProcess host({tools_script()});
  host.send(call_request("1", "escape", R"({"tag":")" + tag + R"("})"));
  // It holds the stdout pipe open forever: only the drain period can end the call.
  auto response = await_response(host, "1", nullptr, 10s);
  ASSERT_TRUE(response) << "the call hung on a pipe held by a process outside its group";
  EXPECT_FALSE(is_error_result(*response));
  // The leader returns only once the escapee has left its group ("escaped <pid> <child>").
  const std::string text = result_text(*response);
  EXPECT_NE(text.find("leader done"), std::string::npos) << text;
  std::istringstream escaped(text);
  std::string word;
  pid_t escapee = -1, child = -1;
  ASSERT_TRUE(escaped >> word >> escapee >> child && word == "escaped") << text;
  EXPECT_TRUE(wait_gone(escapee)) << "the escapee survived its call";
  EXPECT_TRUE(wait_gone(child)) << "the escapee's child survived the call";
  EXPECT_TRUE(wait_no_processes(tag).empty()) << "the escapee survived its call";
}

TEST(Hygiene, ExitStatusAndDeathBySignalAreToldApart) {
  HostProcess host({tools_script()});
  host.send(call_request("1", "exit9"));
  host.send(call_request("2", "kill9"));
  auto got = await_responses(host, {"1", "2"});
  ASSERT_EQ(got.size(), 2u) << host.stderr_text();
  const auto& exited = got["1"];
  const auto& killed = got["2"];
  EXPECT_TRUE(is_error_result(exited));
  EXPECT_TRUE(is_error_result(killed));
  EXPECT_NE(result_text(exited).find("exit status 9"), std::string::npos) << result_text(exited);
  EXPECT_EQ(result_text(exited).find("signal"), std::string::npos) << result_text(exited);
  EXPECT_NE(result_text(killed).find("killed by signal 9 (SIGKILL)"), std::string::npos)
      << result_text(killed);
}

TEST(Hygiene, ScriptDeletedAfterDiscoveryGivesAnErrorResult) {
  ScratchDir dir;
  const std::string script = dir / "tools.sh";
  std::filesystem::copy_file(tools_script(), script);
  HostProcess host({script});
  host.send(request("1", "tools/list"));
  ASSERT_TRUE(await_response(host, "1"));
  std::filesystem::remove(script);
  host.send(call_request("2", "echo", R"({"a":1})"));
  auto response = await_response(host, "2");
  ASSERT_TRUE(response) << host.stderr_text();
  EXPECT_TRUE(response->HasMember("result"));
  EXPECT_TRUE(is_error_result(*response)) << result_text(*response);
  host.send(request("3", "tools/list"));
  EXPECT_TRUE(await_response(host, "3")) << "the host did not survive";
}

// A private copy of bash found first in PATH, deleted once the host runs.
std::string copy_of_bash(const ScratchDir& dir) {
  std::filesystem::create_directory(dir / "bin");
  std::filesystem::copy_file("/bin/bash", dir / "bin/bash");
  std::filesystem::permissions(dir / "bin/bash", std::filesystem::perms::owner_all);
  return dir / "bin";
}

TEST(Hygiene, MissingBashGivesAnErrorResultNotACrash) {
  ScratchDir dir;
  const std::string bin = copy_of_bash(dir);
  HostProcess host({"--warm", "0", tools_script()},
                   HostOptions{{{"PATH", bin + ":" + std::getenv("PATH")}}, ""});
  host.send(call_request("1", "echo", R"({"a":1})"));
  auto ok = await_response(host, "1");
  ASSERT_TRUE(ok) << host.stderr_text();
  EXPECT_FALSE(is_error_result(*ok)) << "the copy of bash was not used";
  std::filesystem::remove(dir / "bin/bash");
  host.send(call_request("2", "echo", R"({"a":2})"));
  auto failed = await_response(host, "2");
  ASSERT_TRUE(failed) << host.stderr_text();
  EXPECT_TRUE(is_error_result(*failed));
  EXPECT_NE(result_text(*failed).find("could not be started"), std::string::npos)
      << result_text(*failed);
  host.send(request("3", "tools/list"));
  EXPECT_TRUE(await_response(host, "3")) << "the host did not survive";
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(), 0);
}

TEST(Hygiene, MissingBashWithPrestartedProcessesStillAnswersEveryCall) {
  ScratchDir dir;
  const std::string bin = copy_of_bash(dir);
  HostProcess host({"--warm", "2", tools_script()},
                   HostOptions{{{"PATH", bin + ":" + std::getenv("PATH")}}, ""});
  host.send(request("0", "tools/list"));
  ASSERT_TRUE(await_response(host, "0"));
  std::filesystem::remove(dir / "bin/bash");
  // The processes started ahead still run their calls; after them, spawning fails.
  for (int i = 1; i <= 4; ++i) {
    host.send(call_request(std::to_string(i), "echo", "{}"));
    auto response = await_response(host, std::to_string(i));
    ASSERT_TRUE(response) << host.stderr_text();
    ASSERT_TRUE(response->HasMember("result"));
    if (i > 2) {
      EXPECT_TRUE(is_error_result(*response));
      EXPECT_NE(result_text(*response).find("could not be started"), std::string::npos)
          << result_text(*response);
    }
  }
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(), 0);
}

}  // namespace
}  // namespace mcpsh::testing
