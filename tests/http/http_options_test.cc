// The command line of serve --http: every option checked (exit 2 with a message), HTTP
// options only with --http, and the old core's variables for the address.
#include <gtest/gtest.h>

#include "e2e_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

std::string tools() { return fixture("exec_tools.sh"); }

TEST(HttpOptions, BadValuesExit2WithAMessage) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--http", "--listen", "nope"}, "--listen"},
      {{"--http", "--listen", "127.0.0.1:70000"}, "--listen"},
      {{"--http", "--listen", "[::1"}, "--listen"},
      {{"--http", "--http-path", "mcp"}, "--http-path"},
      {{"--http", "--allow-origin", "localhost"}, "--allow-origin"},
      {{"--http", "--max-body", "0"}, "--max-body"},
      {{"--http", "--max-header", "10"}, "--max-header"},
      {{"--http", "--max-connections", "0"}, "--max-connections"},
      {{"--http", "--idle-timeout", "0"}, "--idle-timeout"},
      {{"--http", "--header-timeout", "x"}, "--header-timeout"},
      {{"--http", "--metrics-listen", "127.0.0.1:70000"},
       "--metrics-listen needs a port between 0 and 65535"},
      {{"--http", "--metrics-listen", ":9100"}, "--metrics-listen needs [HOST:]PORT"},
      {{"--listen", "3000"}, "needs --http"},
      {{"--metrics-listen", "9100"}, "--metrics-listen needs --http"},
      {{"--max-body", "1k"}, "needs --http"},
      {{"list", "--http"}, "serve"},
  };
  for (const auto& [args, needle] : cases) {
    auto all = args;
    all.push_back(tools());
    auto run = run_cli(all);
    EXPECT_EQ(run.status, 2) << args[1];
    EXPECT_NE(run.err.find(needle), std::string::npos) << run.err;
  }
}

TEST(HttpOptions, BadOldCoreVariablesExit2) {
  auto run = run_cli({"--http", tools()}, {.env = {{"MCP_HTTP_PORT", "http"}}});
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("MCP_HTTP_PORT"), std::string::npos) << run.err;
}

// The old core's MCP_HTTP_BIND and MCP_HTTP_PORT choose the address when --listen does not.
TEST(HttpOptions, OldCoreVariablesChooseTheAddress) {
  HostProcess host({"--http", tools()},
                   {.env = {{"MCP_HTTP_BIND", "127.0.0.1"}, {"MCP_HTTP_PORT", "0"}}});
  std::string err;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while ((err = host.stderr_text()).find("listening on http://127.0.0.1:") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_NE(err.find("listening on http://127.0.0.1:"), std::string::npos) << err;
  EXPECT_EQ(err.find("listening on http://127.0.0.1:3000"), std::string::npos) << err;
}

TEST(HttpOptions, ListeningLineAppearsOnce) {
  HttpHost host({tools()});
  const std::string err = host.process().stderr_text();
  const auto first = err.find("listening on http://");
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(err.find("listening on http://", first + 1), std::string::npos) << err;
}

TEST(HttpOptions, PortInUseFailsToStart) {
  HttpHost first({tools()});
  auto run = run_cli({"--http", "--listen", "127.0.0.1:" + std::to_string(first.port()), tools()});
  EXPECT_EQ(run.status, 1);
  EXPECT_NE(run.err.find("cannot listen"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace mcpsh::testing::http
