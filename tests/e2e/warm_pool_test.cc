// Warm processes are bounded and spawned ahead lazily (tool_executor.h): at most
// clamp(2 x warm, 8, 64) bash processes wait across all scripts, a directory of many scripts is not
// warmed as a whole when listed, and a script is warmed once it has been called.
#include <gtest/gtest.h>

#include <fstream>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

// Children of the host that are bash processes. A process may exit while it is looked at
// (reading its status then fails with ESRCH, which libstdc++ throws): it is not counted.
std::size_t bash_children(pid_t host) {
  std::size_t n = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string line, command;
    pid_t parent = -1;
    try {
      std::ifstream status(entry.path() / "status");
      while (std::getline(status, line)) {
        if (line.rfind("Name:", 0) == 0) command = line.substr(line.find_first_not_of(" \t", 5));
        if (line.rfind("PPid:", 0) == 0) parent = std::atoi(line.c_str() + 5);
      }
    } catch (const std::exception&) {
      continue;
    }
    if (parent == host && command == "bash") ++n;
  }
  return n;
}

// Samples the count until it reaches `want` (true) or the timeout passes; every sample
// must stay at or under `most`.
bool reaches(pid_t host, std::size_t want, std::size_t most, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const std::size_t n = bash_children(host);
    EXPECT_LE(n, most);
    if (n == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// --warm is at most 16 (options.cc); the cap on waiting processes across all scripts,
// clamp(2 x warm, 8, 64), is what bounds several scripts each warmed to 16.
TEST(WarmPool, ThreeScriptsAtSixteenAreCappedAtThirtyTwoWaiting) {
  ScratchDir dir;
  for (int i = 0; i < 3; ++i) {
    std::ofstream script(dir / ("s" + std::to_string(i) + ".sh"));
    script << "tool_t" << i << "() { echo t" << i << "; }\n";
  }
  HostProcess host({"--warm", "16", dir.path});
  for (int i = 0; i < 3; ++i) {
    const std::string id = std::to_string(i + 1);
    host.send(call_request(id, "t" + std::to_string(i)));
    auto response = await_response(host, id);
    ASSERT_TRUE(response);
    EXPECT_EQ(result_text(*response), "t" + std::to_string(i));
    EXPECT_LE(bash_children(host.pid()), 32u);
  }
  ASSERT_TRUE(reaches(host.pid(), 32, 32, 120s)) << "the pool never filled up to its cap";
  host.send(call_request("4", "t1"));
  auto fourth = await_response(host, "4");
  ASSERT_TRUE(fourth);
  EXPECT_FALSE(is_error_result(*fourth)) << result_text(*fourth);
  EXPECT_LE(bash_children(host.pid()), 32u);
}

TEST(WarmPool, ManyScriptsAreNotWarmedWhenListedOnlyOnceCalled) {
  ScratchDir dir;
  for (int i = 0; i < 20; ++i) {
    std::ofstream script(dir / ("s" + std::to_string(i) + ".sh"));
    script << "tool_t" << i << "() { echo t" << i << "; }\n";
  }
  HostProcess host({dir.path});
  host.send(request("1", "tools/list"));
  ASSERT_TRUE(await_response(host, "1"));
  host.send(request("2", "ping"));  // a later turn of the loop than the list's
  ASSERT_TRUE(await_response(host, "2"));
  EXPECT_EQ(bash_children(host.pid()), 0u) << "20 scripts x 2 do not fit under the cap of 8";

  host.send(call_request("3", "t15"));
  auto response = await_response(host, "3");
  ASSERT_TRUE(response);
  EXPECT_EQ(result_text(*response), "t15");
  EXPECT_TRUE(reaches(host.pid(), 2, 2, 60s)) << "the called script was not warmed";
}

}  // namespace
}  // namespace mcpsh::testing
