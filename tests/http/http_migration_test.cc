// An old-core server that ran over HTTP (`./cinema.sh --http`: the script sources the old
// core's mcpserver_http.sh and calls run_mcp_http_server) runs unchanged under
// `mcp-shell-host --http cinema.sh`, with the same environment: MCP_HTTP_BIND,
// MCP_HTTP_PORT, MCP_HTTP_PATH and MCP_ALLOWED_ORIGINS mean what they meant, and the
// script's own transport is never started.
#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "e2e_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

std::string cinema() { return fixture("migration/oldcore-style/cinema.sh"); }

// The port of "listening on http://127.0.0.1:PORT/cinema", or -1.
int wait_for_port(HostProcess& host, const std::string& path) {
  const std::regex listening("listening on http://127\\.0\\.0\\.1:([0-9]+)" + path + "\\b");
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    const std::string err = host.stderr_text();
    if (std::regex_search(err, m, listening)) return std::stoi(m[1]);
    if (host.wait_exit(0ms)) break;
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "no listening line for " << path << ": " << host.stderr_text();
  return -1;
}

TEST(HttpMigration, OldCoreHttpServerRunsUnchangedWithItsEnvironment) {
  HostProcess host({"--http", cinema()}, {.env = {{"MCP_HTTP_BIND", "127.0.0.1"},
                                                  {"MCP_HTTP_PORT", "0"},
                                                  {"MCP_HTTP_PATH", "/cinema"},
                                                  {"MCP_ALLOWED_ORIGINS", "http://app.example"}}});
  const int port = wait_for_port(host, "/cinema");
  ASSERT_GT(port, 0);

  // The tools file's list, in its order, at the old core's path.
  auto listed = http::exchange(port, post("/cinema", request("1", "tools/list")));
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->status, 200) << listed->body;
  auto d = parse(listed->body);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result")) << listed->body;
  std::vector<std::string> names;
  for (const auto& t : d["result"]["tools"].GetArray()) names.push_back(t["name"].GetString());
  EXPECT_EQ(names,
            (std::vector<std::string>{"list_films", "reserve_seats", "check_age", "refund_seats"}));

  // A call from a page of the allowed origin runs the script's tool.
  auto called = http::exchange(
      port, post("/cinema", call_request("2", "check_age", R"({"age":21,"rating":"A"})"),
                 {{"Origin", "http://app.example"}}));
  ASSERT_TRUE(called);
  EXPECT_EQ(called->status, 200) << called->body;
  EXPECT_TRUE(is_call_result(called->body, false, "2"));
  EXPECT_EQ(result_text(parse(called->body)), "Age 21 is fine for rating A");

  // MCP_ALLOWED_ORIGINS replaces the defaults, as it did for the old core.
  auto foreign = http::exchange(
      port, post("/cinema", request("3", "tools/list"), {{"Origin", "http://localhost"}}));
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  // The default path is not served when MCP_HTTP_PATH names another one.
  auto other = http::exchange(port, post("/mcp", request("4", "tools/list")));
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);

  // The script's own HTTP transport never ran: the host sources it without arguments.
  EXPECT_EQ(host.stderr_text().find("stand-in HTTP transport"), std::string::npos)
      << host.stderr_text();
}

}  // namespace
}  // namespace mcpsh::testing::http
