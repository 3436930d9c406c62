// Timeouts: the default (--timeout) and a tool's own (# @timeout SECONDS) end the whole
// process group, and the isError result says after how long.
#include <gtest/gtest.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

TEST(Timeout, DefaultTimeoutEndsTheGroupAndSaysSo) {
  const std::string tag = unique_tag("timeout");
  TagCleanup cleanup(tag);
  HostProcess host({"--timeout", "0.5", tools_script()});
  host.send(call_request("1", "sleeper", R"({"tag":")" + tag + R"("})", progress_meta("1")));
  auto ready = await_progress(host, "ready");
  ASSERT_TRUE(ready) << host.stderr_text();
  auto pids = ready_pids(*ready);
  auto response = await_response(host, "1");
  ASSERT_TRUE(response);
  EXPECT_TRUE(is_error_result(*response));
  EXPECT_NE(result_text(*response).find("timed out after 0.5 s"), std::string::npos)
      << result_text(*response);
  EXPECT_TRUE(wait_gone(pids.leader));
  EXPECT_TRUE(wait_gone(pids.grandchild));
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Timeout, ToolsOwnTimeoutReplacesTheDefault) {
  const std::string tag = unique_tag("own-timeout");
  TagCleanup cleanup(tag);
  HostProcess host({"--timeout", "60", tools_script()});
  host.send(call_request("1", "limited", R"({"tag":")" + tag + R"("})"));
  auto response = await_response(host, "1", nullptr, 30s);
  ASSERT_TRUE(response);
  EXPECT_TRUE(is_error_result(*response));
  EXPECT_NE(result_text(*response).find("timed out after 1 s"), std::string::npos)
      << result_text(*response);
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Timeout, ToolThatIgnoresTermIsKilledAfterTheGrace) {
  const std::string tag = unique_tag("timeout-ignore");
  TagCleanup cleanup(tag);
  HostProcess host({"--timeout", "0.5", "--kill-grace", "0.5", tools_script()});
  host.send(call_request("1", "ignore_term", R"({"tag":")" + tag + R"("})"));
  auto response = await_response(host, "1");
  ASSERT_TRUE(response);
  EXPECT_TRUE(is_error_result(*response));
  EXPECT_NE(result_text(*response).find("timed out after 0.5 s"), std::string::npos)
      << result_text(*response);
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

TEST(Timeout, CallsWithinTheTimeoutAreUntouched) {
  HostProcess host({"--timeout", "5", tools_script()});
  host.send(call_request("1", "nap", R"({"seconds":0.2})"));
  auto response = await_response(host, "1");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response));
  EXPECT_EQ(result_text(*response), "napped 0.2");
}

}  // namespace
}  // namespace mcpsh::testing
