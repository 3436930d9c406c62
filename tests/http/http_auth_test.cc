// Bearer-token authentication (--auth-token-file): 401 with WWW-Authenticate: Bearer
// without the token or with a wrong one; served with it; the token never in the log.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

std::string tools() { return fixture("exec_tools.sh"); }

TEST(HttpAuth, RequestsNeedTheBearerToken) {
  exec::ScratchDir dir;
  const std::string token_file = dir.path + "/token";
  const std::string token = "s3cr3t-T0ken-4f9a";
  { std::ofstream(token_file) << token << "\n"; }
  HttpHost host({"--auth-token-file", token_file, "--log-level", "debug", tools()});

  auto missing = exchange(host.port(), post("/mcp", request("1", "tools/list")));
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 401);
  EXPECT_EQ(missing->header("www-authenticate"), "Bearer");
  EXPECT_TRUE(is_error_response(missing->body, -32000, std::nullopt)) << missing->body;

  for (const std::string& wrong :
       std::vector<std::string>{"Bearer nope", "Bearer " + token + "x", "Bearer " + token.substr(1),
                                "Basic " + token, token}) {
    auto r =
        exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Authorization", wrong}}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << wrong;
    EXPECT_EQ(r->header("www-authenticate"), "Bearer");
  }
  for (const std::string& right : std::vector<std::string>{"Bearer " + token, "bearer " + token}) {
    auto r =
        exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Authorization", right}}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << right;
  }
  EXPECT_EQ(host.process().stderr_text().find(token), std::string::npos) << "the token was logged";
}

TEST(HttpAuth, EmptyOrUnreadableTokenFileRefusesToStart) {
  exec::ScratchDir dir;
  { std::ofstream(dir.path + "/empty") << "\n"; }
  for (const std::string& file :
       std::vector<std::string>{dir.path + "/empty", dir.path + "/absent"}) {
    auto run = run_cli({"--http", "--listen", "127.0.0.1:0", "--auth-token-file", file, tools()});
    EXPECT_EQ(run.status, 2) << file;
    EXPECT_NE(run.err.find("token file"), std::string::npos) << run.err;
  }
}

}  // namespace
}  // namespace mcpsh::testing::http
