// Output bounds: however much a tool prints, the host keeps --max-output bytes of stdout
// and a --max-stderr tail of stderr, says what it cut, and its own memory stays bounded.
#include <gtest/gtest.h>

#include "exec_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace exec;

// VmHWM is the peak resident size over the host's whole life. It is compared with the
// peak after a small call of the same tool (the host's own size differs a lot between the
// ASan build, about 100 MB by then, and Release, a few MB): the flood may add this much.
// Buffering the 32 MB of stderr, or any part of a gigabyte of stdout, would exceed it.
constexpr long kMaxGrowthKib = 16 * 1024;

// The host's peak after one small call of `tool` (its start-up and first call done).
long peak_after_small_call(HostProcess& host, const std::string& tool, const std::string& args) {
  host.send(call_request("0", tool, args));
  if (!await_response(host, "0", nullptr, 60s)) return -1;
  return status_kib(host.pid(), "VmHWM");
}

TEST(OutputBounds, GigabytesOfStdoutAreTruncatedWithBoundedMemory) {
  HostProcess host({"--max-output", "64k", tools_script()});
  const long base = peak_after_small_call(host, "flood", R"({"bytes":"1"})");
  ASSERT_GT(base, 0);
  host.send(call_request("1", "flood", R"({"bytes":"2G"})"));
  auto response = await_response(host, "1", nullptr, 120s);
  ASSERT_TRUE(response) << host.stderr_text();
  EXPECT_FALSE(is_error_result(*response));
  const std::string text = result_text(*response);
  EXPECT_EQ(text.rfind("y\ny\ny\n", 0), 0u);
  EXPECT_NE(text.find("output truncated"), std::string::npos) << text.substr(text.size() - 200);
  EXPECT_NE(text.find("printed 2.0 GiB"), std::string::npos) << text.substr(text.size() - 200);
  EXPECT_NE(text.find("first 64.0 KiB"), std::string::npos) << text.substr(text.size() - 200);
  EXPECT_LT(text.size(), 65536u + 200);
  const long peak = status_kib(host.pid(), "VmHWM");
  EXPECT_LT(peak - base, kMaxGrowthKib) << "the host's peak RSS grew with the tool's output";
}

TEST(OutputBounds, OutputJustUnderTheLimitIsComplete) {
  HostProcess host({"--max-output", "64k", tools_script()});
  host.send(call_request("1", "flood", R"({"bytes":65536})"));
  auto response = await_response(host, "1");
  ASSERT_TRUE(response);
  EXPECT_FALSE(is_error_result(*response));
  const std::string text = result_text(*response);
  EXPECT_EQ(text.find("truncated"), std::string::npos);
  EXPECT_EQ(text.size(), 65535u);  // the last newline is trimmed, as $(...) would
}

TEST(OutputBounds, StderrFloodKeepsOnlyItsTailAndSparesTheLog) {
  HostProcess host({"--max-stderr", "16k", tools_script()});
  const long base = peak_after_small_call(host, "flood_stderr", R"({"bytes":"1"})");
  ASSERT_GT(base, 0);
  host.send(call_request("1", "flood_stderr", R"({"bytes":"32M"})"));
  auto response = await_response(host, "1", nullptr, 60s);
  ASSERT_TRUE(response);
  EXPECT_TRUE(is_error_result(*response));
  const std::string text = result_text(*response);
  EXPECT_NE(text.find("the end of stderr"), std::string::npos) << text.substr(0, 300);
  EXPECT_LT(text.size(), 16u * 1024 + 400);
  EXPECT_LT(status_kib(host.pid(), "VmHWM") - base, kMaxGrowthKib)
      << "the host's peak RSS grew with the tool's stderr";

  host.close_stdin();
  EXPECT_EQ(host.wait_exit(), 0);
  const std::string log = host.stderr_text();
  EXPECT_LT(log.size(), 256u * 1024) << "32 MB of tool stderr flooded the diagnostic log";
  EXPECT_NE(log.find("more bytes of stderr were not logged"), std::string::npos);
}

}  // namespace
}  // namespace mcpsh::testing
