// Resource limits: --cpu-limit (RLIMIT_CPU) and --memory-limit (RLIMIT_AS) end a tool that
// exceeds them, and the isError text says which limit it hit.
#include <gtest/gtest.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

TEST(ResourceLimits, BusyLoopHitsTheCpuLimit) {
  HostProcess host({"--cpu-limit", "1", "--timeout", "60", tools_script()});
  host.send(call_request("1", "busy"));
  auto response = await_response(host, "1", nullptr, 60s);
  ASSERT_TRUE(response) << host.stderr_text();
  EXPECT_TRUE(is_error_result(*response));
  const std::string text = result_text(*response);
  EXPECT_NE(text.find("CPU time limit of 1 s"), std::string::npos) << text;
  EXPECT_EQ(text.find("timed out"), std::string::npos) << text;
}

TEST(ResourceLimits, ChildOfTheToolHittingTheCpuLimitIsReportedToo) {
  HostProcess host({"--cpu-limit", "1", "--timeout", "60", tools_script()});
  host.send(call_request("1", "busy_child"));
  auto response = await_response(host, "1", nullptr, 60s);
  ASSERT_TRUE(response) << host.stderr_text();
  EXPECT_TRUE(is_error_result(*response));
  const std::string text = result_text(*response);
  EXPECT_NE(text.find("used up its CPU time limit of 1 s"), std::string::npos) << text;
}

TEST(ResourceLimits, CpuLimitDoesNotTouchAToolThatStaysUnderIt) {
  HostProcess host({"--cpu-limit", "1", tools_script()});
  host.send(call_request("1", "nap", R"({"seconds":1.5})"));  // sleeping costs no CPU
  auto response = await_response(host, "1");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response);
}

TEST(ResourceLimits, AllocatingPastTheMemoryLimitIsReported) {
  HostProcess host({"--memory-limit", "100M", tools_script()});
  host.send(call_request("1", "hog", R"({"size":"200M"})"));
  auto response = await_response(host, "1", nullptr, 60s);
  ASSERT_TRUE(response) << host.stderr_text();
  EXPECT_TRUE(is_error_result(*response));
  const std::string text = result_text(*response);
  EXPECT_NE(text.find("memory limit of 100.0 MiB"), std::string::npos) << text;
}

TEST(ResourceLimits, WithoutAMemoryLimitASmallerHogSucceeds) {
  HostProcess host({tools_script()});
  host.send(call_request("1", "hog", R"({"size":"20M"})"));
  auto response = await_response(host, "1", nullptr, 60s);
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response)) << result_text(*response).substr(0, 300);
  EXPECT_EQ(result_text(*response), "20971520");
}

}  // namespace
}  // namespace mcpsh::testing
