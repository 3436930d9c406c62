// The transport's pure rules, without a server: origins, Host names, bearer tokens, the
// status of a response, SSE framing.
#include <gtest/gtest.h>

#include <fstream>

#include "exec_helpers.h"
#include "http/bearer_token.h"
#include "http/origin_policy.h"
#include "http/wire_format.h"

namespace mcpsh::http {
namespace {

TEST(HttpPolicy, OriginKeyIsSchemeAndHostWithoutPort) {
  EXPECT_EQ(origin_key("http://localhost:8080"), "http://localhost");
  EXPECT_EQ(origin_key("HTTPS://App.Example.com/path"), "https://app.example.com");
  EXPECT_EQ(origin_key("http://[::1]:3000"), "http://[::1]");
  EXPECT_EQ(origin_key("null"), "");
  EXPECT_EQ(origin_key("http://user@localhost"), "");
  EXPECT_EQ(origin_key("://x"), "");
}

TEST(HttpPolicy, OriginAllowedComparesSchemeAndHost) {
  const std::vector<std::string> allowed{"http://localhost", "http://127.0.0.1"};
  EXPECT_TRUE(origin_allowed("http://localhost:6274", allowed));
  EXPECT_TRUE(origin_allowed("http://127.0.0.1", allowed));
  EXPECT_FALSE(origin_allowed("https://localhost", allowed));
  EXPECT_FALSE(origin_allowed("http://localhost.evil.com", allowed));
  EXPECT_FALSE(origin_allowed("http://127.0.0.1.evil.com:80", allowed));
  EXPECT_FALSE(origin_allowed("null", allowed));
  // An entry with a port admits that port only.
  const std::vector<std::string> exact{"https://app.test:8443"};
  EXPECT_TRUE(origin_allowed("https://app.test:8443", exact));
  EXPECT_FALSE(origin_allowed("https://app.test:9000", exact));
  EXPECT_FALSE(origin_allowed("https://app.test", exact));
}

TEST(HttpPolicy, SplitListTrimsAndDropsEmptyItems) {
  EXPECT_EQ(split_list(" a, b ,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
}

TEST(HttpPolicy, LoopbackHostHeaders) {
  for (const char* ok : {"localhost", "LOCALHOST:3000", "127.0.0.1", "127.0.0.1:1", "127.1.2.3",
                         "[::1]", "[::1]:8080"})
    EXPECT_TRUE(host_header_is_loopback(ok)) << ok;
  for (const char* bad : {"evil.example.com", "localhost.evil.com", "127.0.0.1.evil.com",
                          "127.0.0.1:80x", "localhost:", "[::2]", "", "10.0.0.1"})
    EXPECT_FALSE(host_header_is_loopback(bad)) << bad;
}

TEST(HttpPolicy, BearerMatchesOnlyTheExactToken) {
  EXPECT_TRUE(bearer_matches("Bearer abc", "abc"));
  EXPECT_TRUE(bearer_matches("bearer abc", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer abcd", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer ab", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer abd", "abc"));
  EXPECT_FALSE(bearer_matches("Basic abc", "abc"));
  EXPECT_FALSE(bearer_matches("abc", "abc"));
  EXPECT_FALSE(bearer_matches("Bearer ", "abc"));
}

TEST(HttpPolicy, TokenFileLosesItsNewlineAndMustHoldAToken) {
  testing::exec::ScratchDir dir;
  { std::ofstream(dir.path + "/t") << "tok\r\n"; }
  EXPECT_EQ(load_token_file(dir.path + "/t").token, "tok");
  { std::ofstream(dir.path + "/empty") << "\n\n"; }
  EXPECT_FALSE(load_token_file(dir.path + "/empty").token);
  { std::ofstream(dir.path + "/space") << "a b\n"; }
  EXPECT_FALSE(load_token_file(dir.path + "/space").token);
  auto absent = load_token_file(dir.path + "/absent");
  EXPECT_FALSE(absent.token);
  EXPECT_NE(absent.error.find("cannot read"), std::string::npos);
}

TEST(HttpPolicy, StatusFollowsTheJsonRpcErrorCode) {
  auto status = [](std::optional<int> code) {
    return status_for(mcp::Outgoing{mcp::Outgoing::Kind::kResponse, code});
  };
  EXPECT_EQ(status(std::nullopt), 200);
  for (int code : {-32700, -32600, -32602, -32020, -32021, -32022})
    EXPECT_EQ(status(code), 400) << code;
  EXPECT_EQ(status(-32601), 404);
  EXPECT_EQ(status(-32603), 200);
  EXPECT_EQ(status(-32000), 200);
}

TEST(HttpPolicy, SseEventIsOneChunk) {
  EXPECT_EQ(sse_event_chunk("{}"), "19\r\nevent: message\ndata: {}\n\n\r\n");
  EXPECT_EQ(last_chunk(), "0\r\n\r\n");
}

}  // namespace
}  // namespace mcpsh::http
