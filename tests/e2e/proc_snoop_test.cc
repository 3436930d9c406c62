// A tool cannot reach the host's own descriptors through /proc/$PPID: it cannot answer
// in the host's name on the client's stdout, read the client's next request from the
// host's stdin, or read the host's memory (where other calls' arguments are). Runner-level
// tests of the same: tests/execution/host_isolation_test.cc.
//
// The host wiring (cli::Host) builds its runner with RunnerOptions::hide_host_from_tools;
// every call's arguments arrive on the bash's own fd 5, never behind /proc/<host>/fd/N.
#include <gtest/gtest.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

TEST(ProcSnoop, AToolCannotReachTheClientsPipesOrTheHostsMemory) {
  HostProcess host({fixture("host_snoop.sh")});
  std::vector<std::string> others;

  host.send(call_request("1", "inject"));
  auto injected = await_response(host, "1", &others);
  ASSERT_TRUE(injected);
  EXPECT_EQ(result_text(*injected), "inject=1");

  // The ping is sent while the tool tries to read the host's stdin: it must reach the
  // host, and be answered, all the same.
  host.send(call_request("2", "steal"));
  host.send(request("3", "ping"));
  EXPECT_TRUE(await_response(host, "3", &others)) << "the request was lost";
  auto stolen = await_response(host, "2", &others);
  ASSERT_TRUE(stolen);
  EXPECT_EQ(result_text(*stolen), "steal=1");

  host.send(call_request("4", "peek"));
  auto peeked = await_response(host, "4", &others);
  ASSERT_TRUE(peeked);
  EXPECT_EQ(result_text(*peeked), "peek=1");

  for (const auto& line : others) EXPECT_EQ(line.find("forged"), std::string::npos) << line;
}

}  // namespace
}  // namespace mcpsh::testing
