// The transport's limits, each with its HTTP error: body size (413), header size (431),
// connections (503), and the header timeout that cuts off a client trickling bytes.
#include <gtest/gtest.h>

#include "e2e_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

std::string tools() { return fixture("exec_tools.sh"); }

TEST(HttpLimits, BodyOverMaxBodyIs413) {
  HttpHost host({"--max-body", "1k", tools()});
  const std::string big = call_request("1", "echo", R"({"pad":")" + std::string(2000, 'x') + "\"}");
  Client c(host.port());
  ASSERT_TRUE(c.send(post("/mcp", big)));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_TRUE(is_error_response(r->body, -32000, std::nullopt)) << r->body;
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(c.closed_by_server());
  // Within the limit: served.
  EXPECT_EQ(
      exchange(host.port(), post("/mcp", call_request("2", "echo", R"({"pad":"x"})")))->status,
      200);
}

// A chunked body has no length up front: the limit holds while it is read.
TEST(HttpLimits, ChunkedBodyOverMaxBodyIs413) {
  HttpHost host({"--max-body", "1k", tools()});
  Client c(host.port());
  std::string head = post("/mcp", "", {{"Content-Length", ""}, {"Transfer-Encoding", "chunked"}});
  std::string chunk(600, ' ');
  ASSERT_TRUE(c.send(head + "258\r\n" + chunk + "\r\n258\r\n" + chunk + "\r\n"));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
}

// A chunk-size line that never ends (or a trailer that never ends) is not chunk data, so
// --max-body does not count it and the parser does not bound it: it gets the header's bound.
TEST(HttpLimits, EndlessChunkHeaderIsRefused) {
  HttpHost host({"--max-header", "4k", tools()});
  Client c(host.port());
  std::string head = post("/mcp", "", {{"Content-Length", ""}, {"Transfer-Encoding", "chunked"}});
  ASSERT_TRUE(c.send(head + "1;" + std::string(64 << 10, 'a')));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("chunk header or trailer"), std::string::npos) << r->body;
}

TEST(HttpLimits, HeaderOverMaxHeaderIs431) {
  HttpHost host({"--max-header", "2k", tools()});
  Client c(host.port());
  ASSERT_TRUE(
      c.send(post("/mcp", request("1", "tools/list"), {{"X-Padding", std::string(4000, 'p')}})));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
  EXPECT_TRUE(is_error_response(r->body, -32000, std::nullopt)) << r->body;
  EXPECT_TRUE(c.closed_by_server());
}

// A client that sends part of a header and then nothing is cut off at the header
// timeout; one that sends nothing at all too.
TEST(HttpLimits, TricklingClientIsCutOff) {
  HttpHost host({"--header-timeout", "0.3", tools()});
  Client trickle(host.port()), silent(host.port());
  ASSERT_TRUE(trickle.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a"));
  EXPECT_TRUE(trickle.closed_by_server());
  EXPECT_TRUE(silent.closed_by_server());
  EXPECT_EQ(trickle.received(), "") << "nothing is answered to a request never finished";
  // The server itself is fine.
  EXPECT_EQ(exchange(host.port(), post("/mcp", request("1", "tools/list")))->status, 200);
}

TEST(HttpLimits, IdleKeepAliveConnectionIsClosed) {
  HttpHost host({"--idle-timeout", "0.3", tools()});
  Client c(host.port());
  ASSERT_TRUE(c.send(post("/mcp", request("1", "tools/list"))));
  auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(c.closed_by_server());
}

TEST(HttpLimits, ConnectionsBeyondTheLimitGet503) {
  HttpHost host({"--max-connections", "1", tools()});
  auto first = std::make_unique<Client>(host.port());
  // Served, and kept open: it holds the one slot.
  ASSERT_TRUE(first->send(post("/mcp", request("1", "tools/list"))));
  ASSERT_EQ(first->read_response()->status, 200);
  {
    Client second(host.port());
    ASSERT_TRUE(second.send(post("/mcp", request("2", "tools/list"))));
    auto r = second.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 503);
    EXPECT_EQ(r->header("retry-after"), "1");
    EXPECT_TRUE(is_error_response(r->body, -32000, std::nullopt)) << r->body;
    EXPECT_TRUE(second.closed_by_server());
  }
  // The first one still works; once it is gone, a new one is served.
  ASSERT_TRUE(first->send(post("/mcp", request("3", "tools/list"))));
  EXPECT_EQ(first->read_response()->status, 200);
  first.reset();
  // The server learns of the close asynchronously: a connection made meanwhile may still
  // be refused, so the test retries on 503 (bounded), never on a fixed sleep.
  std::optional<Response> r;
  for (int attempt = 0; attempt < 200; ++attempt) {
    r = exchange(host.port(), post("/mcp", request("4", "tools/list")));
    if (r && r->status != 503) break;
  }
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

}  // namespace
}  // namespace mcpsh::testing::http
