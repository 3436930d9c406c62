// The shortest path through the host: discover, list, call.
#include <gtest/gtest.h>

#include "host_process.h"

namespace mcpsh::testing {

TEST(Smoke, DiscoverListCall) {
  HostProcess host({fixture("basic.sh")});
  host.send(request("1", "server/discover"));
  auto discover = parse(host.read_line().value_or(""));
  ASSERT_TRUE(discover.IsObject());
  EXPECT_STREQ(discover["result"]["resultType"].GetString(), "complete");

  host.send(request("2", "tools/list"));
  auto list = parse(host.read_line().value_or(""));
  ASSERT_TRUE(list.IsObject());
  EXPECT_STREQ(list["result"]["tools"][0]["name"].GetString(), "hi");

  host.send(call_request("3", "hi"));
  auto call = parse(host.read_line().value_or(""));
  EXPECT_EQ(result_text(call), "hi");
  EXPECT_FALSE(is_error_result(call));

  host.close_stdin();
  auto status = host.wait_exit();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, 0);
}

}  // namespace mcpsh::testing
