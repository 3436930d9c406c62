// The Streamable HTTP rules, one test per status code and header rule: what a request
// gets back for its method, path, Origin, Host, Content-Type and Accept, and how a
// notification, a request and an error map to HTTP.
#include <gtest/gtest.h>

#include <fstream>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

std::string tools() { return fixture("exec_tools.sh"); }

// A JSON-RPC error without id, the body of a transport refusal.
void expect_refusal_body(const Response& r) {
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_TRUE(is_error_response(r.body, -32000, std::nullopt)) << r.body;
}

TEST(HttpRules, ToolsListIsAnsweredWithJson) {
  HttpHost host({tools()});
  auto r = exchange(host.port(), post("/mcp", request("1", "tools/list")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  auto d = parse(r->body);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result")) << r->body;
  EXPECT_TRUE(d["result"]["tools"].IsArray());
  EXPECT_FALSE(r->has("mcp-session-id"));
}

TEST(HttpRules, NotificationIsAcceptedWith202AndNoBody) {
  HttpHost host({tools()});
  auto r = exchange(host.port(),
                    post("/mcp", R"({"jsonrpc":"2.0","method":"notifications/initialized"})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(r->body, "");
}

TEST(HttpRules, GetAndDeleteAre405WithAllowPost) {
  HttpHost host({tools()});
  for (const char* method : {"GET", "DELETE", "PUT"}) {
    auto r = exchange(host.port(), bare(method, "/mcp"));
    ASSERT_TRUE(r) << method;
    EXPECT_EQ(r->status, 405) << method;
    EXPECT_EQ(r->header("allow"), "POST") << method;
    expect_refusal_body(*r);
  }
}

TEST(HttpRules, OtherPathsAre404) {
  HttpHost host({tools()});
  for (const char* path : {"/", "/mcp/", "/other"}) {
    auto r = exchange(host.port(), post(path, request("1", "tools/list")));
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
    expect_refusal_body(*r);
  }
}

// Probes for a load balancer or orchestrator: no MCP header rules, no token, any Host.
TEST(HttpRules, HealthAndReadinessProbesAnswerOffTheMcpPath) {
  exec::ScratchDir dir;
  const std::string token_file = dir.path + "/token";
  { std::ofstream(token_file) << "s3cr3t-probe-token\n"; }
  HttpHost host({"--auth-token-file", token_file, tools()});
  for (const char* path : {"/healthz", "/readyz", "/readyz?verbose"}) {
    auto r = exchange(host.port(), bare("GET", path));
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path;
    EXPECT_EQ(r->body, "ok\n") << path;
    EXPECT_EQ(r->header("cache-control"), "no-store") << path;
  }
  auto post_probe = exchange(host.port(), post("/healthz", request("1", "tools/list")));
  ASSERT_TRUE(post_probe);
  EXPECT_EQ(post_probe->status, 404) << "only GET and HEAD are probes";
  auto mcp = exchange(host.port(), post("/mcp", request("1", "tools/list")));
  ASSERT_TRUE(mcp);
  EXPECT_EQ(mcp->status, 401) << "the MCP endpoint still wants its token";
}

// /metrics: counters fed by every finished request, the error classes kept apart; bytes
// both ways; processes alive and warm-pool hits and misses, read at the scrape.
TEST(HttpRules, MetricsCountRequestsByMethodAndClassAndTimeCallsByTool) {
  HttpHost host({tools()});
  std::uint64_t bytes_sent = 0;
  const std::vector<std::pair<std::string, int>> sent = {
      {call_request("1", "echo", R"({"x":1})"), 200},
      {call_request("2", "fail", R"({"message":"no"})"), 200},
      {request("3", "tools/list"), 200},
      {request("4", "no/such/method"), 404}};  // -32601 maps to 404 over HTTP
  for (const auto& [body, status] : sent) {
    auto r = exchange(host.port(), post("/mcp", body));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << body;
    bytes_sent += body.size();
  }
  auto m = exchange(host.port(), bare("GET", "/metrics"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->status, 200);
  EXPECT_EQ(m->header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  for (const char* line :
       {"mcpsh_requests_total{method=\"tools/call\",class=\"ok\"} 1\n",
        "mcpsh_requests_total{method=\"tools/call\",class=\"tool_error\"} 1\n",
        "mcpsh_requests_total{method=\"tools/list\",class=\"ok\"} 1\n",
        "mcpsh_requests_total{method=\"other\",class=\"protocol_error\"} 1\n",
        "mcpsh_call_duration_seconds_count{tool=\"echo\"} 1\n",
        "mcpsh_call_duration_seconds_bucket{tool=\"fail\",le=\"+Inf\"} 1\n",
        "mcpsh_calls_in_flight 0\n", "# TYPE mcpsh_call_duration_seconds histogram\n"})
    EXPECT_NE(m->body.find(line), std::string::npos) << line << "\n" << m->body;
  // Two calls: the first script's bash may have been warm already or not, but both count.
  auto value = [&](const std::string& name) {
    auto at = m->body.find("\n" + name + " ");
    return at == std::string::npos ? -1.0 : std::stod(m->body.substr(at + name.size() + 2));
  };
  EXPECT_EQ(value("mcpsh_request_bytes_total"), static_cast<double>(bytes_sent)) << m->body;
  EXPECT_EQ(value("mcpsh_warm_starts_total{result=\"hit\"}") +
                value("mcpsh_warm_starts_total{result=\"miss\"}"),
            2.0)
      << m->body;
  // Warm bash waiting for the next call (two per script by default), nothing else.
  EXPECT_GE(value("mcpsh_processes"), 1.0) << m->body;
  EXPECT_LE(value("mcpsh_processes"), 2.0) << m->body;
}

// A tool that asks, over HTTP (MCP 2026-07-28): input_required with a sealed state, the
// retry with the answer completes, an undeclared capability is -32021 with 400; /metrics
// counts the rounds as their own class.
TEST(HttpRules, ToolsThatAskAnswerInputRequiredAndAreCountedSo) {
  HttpHost host({fixture("asking/asking.sh")});
  auto body = [](const std::string& id, const std::string& tool, const std::string& extra,
                 const std::string& capabilities) {
    return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":"tools/call","params":{"name":")" +
           tool + R"(","arguments":{})" + extra +
           R"(,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
           R"("io.modelcontextprotocol/clientInfo":{"name":"http-test","version":"1"},)"
           R"("io.modelcontextprotocol/clientCapabilities":)" +
           capabilities + "}}}";
  };
  auto first = exchange(host.port(), post("/mcp", body("1", "greet", "", R"({"elicitation":{}})")));
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  auto d = parse(first->body);
  ASSERT_TRUE(d.HasMember("result")) << first->body;
  EXPECT_EQ(std::string(d["result"]["resultType"].GetString()), "input_required") << first->body;
  const std::string state = d["result"]["requestState"].GetString();
  auto second = exchange(
      host.port(),
      post("/mcp", body("2", "greet",
                        R"(,"inputResponses":{"who":{"action":"accept","content":{"name":"Ann"}}},)"
                        R"("requestState":")" +
                            state + R"(")",
                        R"({"elicitation":{}})")));
  ASSERT_TRUE(second);
  EXPECT_EQ(second->status, 200);
  EXPECT_EQ(result_text(parse(second->body)), "Hello, Ann!") << second->body;
  auto refused = exchange(host.port(), post("/mcp", body("3", "needs_sampling", "", "{}")));
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400) << refused->body;
  EXPECT_EQ(parse(refused->body)["error"]["code"].GetInt(), -32021) << refused->body;
  auto m = exchange(host.port(), bare("GET", "/metrics"));
  ASSERT_TRUE(m);
  for (const char* line :
       {"mcpsh_requests_total{method=\"tools/call\",class=\"input_required\"} 1\n",
        "mcpsh_requests_total{method=\"tools/call\",class=\"ok\"} 1\n",
        "mcpsh_requests_total{method=\"tools/call\",class=\"protocol_error\"} 1\n"})
    EXPECT_NE(m->body.find(line), std::string::npos) << line << "\n" << m->body;
}

TEST(HttpRules, MetricsWantTheTokenWhenThereIsOne) {
  exec::ScratchDir dir;
  const std::string token_file = dir.path + "/token";
  { std::ofstream(token_file) << "s3cr3t-metrics-token\n"; }
  HttpHost host({"--auth-token-file", token_file, tools()});
  auto anonymous = exchange(host.port(), bare("GET", "/metrics"));
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  EXPECT_EQ(anonymous->header("www-authenticate"), "Bearer");
  auto with = exchange(host.port(),
                       bare("GET", "/metrics", {{"Authorization", "Bearer s3cr3t-metrics-token"}}));
  ASSERT_TRUE(with);
  EXPECT_EQ(with->status, 200);
  EXPECT_NE(with->body.find("mcpsh_requests_total"), std::string::npos) << with->body;
}

TEST(HttpRules, HttpPathOptionAndEnvironmentMoveTheEndpoint) {
  {
    HttpHost host({"--http-path", "/tools/v1", tools()});
    EXPECT_EQ(host.url_path(), "/tools/v1");
    EXPECT_EQ(exchange(host.port(), post("/tools/v1", request("1", "tools/list")))->status, 200);
    EXPECT_EQ(exchange(host.port(), post("/mcp", request("1", "tools/list")))->status, 404);
  }
  HttpHost host({tools()}, {.env = {{"MCP_HTTP_PATH", "/old-core"}}});
  EXPECT_EQ(exchange(host.port(), post("/old-core", request("1", "tools/list")))->status, 200);
}

TEST(HttpRules, ForeignOriginIs403WithAnErrorWithoutId) {
  HttpHost host({tools()});
  auto r = exchange(host.port(), post("/mcp", request("1", "tools/list"),
                                      {{"Origin", "http://evil.example.com"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  expect_refusal_body(*r);
  // The default origins, on any port.
  for (const char* origin : {"http://localhost:6274", "http://127.0.0.1", "http://LOCALHOST:1"}) {
    auto ok = exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Origin", origin}}));
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << origin;
  }
  // Same host, another scheme: another origin.
  EXPECT_EQ(exchange(host.port(),
                     post("/mcp", request("1", "tools/list"), {{"Origin", "https://localhost"}}))
                ->status,
            403);
}

TEST(HttpRules, AllowOriginReplacesTheDefaults) {
  HttpHost host({"--allow-origin", "https://app.example.com,http://tool.test", tools()});
  auto origin_status = [&](const std::string& origin) {
    return exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Origin", origin}}))
        ->status;
  };
  EXPECT_EQ(origin_status("https://app.example.com"), 200);
  EXPECT_EQ(origin_status("http://tool.test:8080"), 200);
  EXPECT_EQ(origin_status("http://localhost"), 403);
}

TEST(HttpRules, AllowedOriginsComeFromTheOldCoreVariable) {
  HttpHost host({tools()}, {.env = {{"MCP_ALLOWED_ORIGINS", "http://intranet.test"}}});
  EXPECT_EQ(exchange(host.port(),
                     post("/mcp", request("1", "tools/list"), {{"Origin", "http://intranet.test"}}))
                ->status,
            200);
  EXPECT_EQ(exchange(host.port(),
                     post("/mcp", request("1", "tools/list"), {{"Origin", "http://localhost"}}))
                ->status,
            403);
}

// DNS rebinding: a browser sends the attacker's name as Host; as the conformance suite's
// dns-rebinding-protection scenario does, with a matching Origin.
TEST(HttpRules, ForeignHostIs403WhenBoundToLoopback) {
  HttpHost host({tools()});
  auto r = exchange(host.port(),
                    post("/mcp", request("1", "tools/list"),
                         {{"Host", "evil.example.com"}, {"Origin", "http://evil.example.com"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  expect_refusal_body(*r);
  // Without an Origin too.
  EXPECT_EQ(exchange(host.port(),
                     post("/mcp", request("1", "tools/list"), {{"Host", "evil.example.com:80"}}))
                ->status,
            403);
  const std::string port = std::to_string(host.port());
  for (const std::string& name :
       std::vector<std::string>{"127.0.0.1:" + port, "localhost:" + port, "localhost"}) {
    auto ok = exchange(host.port(), post("/mcp", request("1", "tools/list"),
                                         {{"Host", name}, {"Origin", "http://" + name}}));
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << name;
  }
  // [::1] is a loopback Host; as an Origin it is not among the defaults (those of the old
  // core), so it goes without one here.
  EXPECT_EQ(
      exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Host", "[::1]:" + port}}))
          ->status,
      200);
}

TEST(HttpRules, ContentTypeOtherThanJsonIs415) {
  HttpHost host({tools()});
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", ""}) {
    auto r =
        exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Content-Type", type}}));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 415) << type;
    expect_refusal_body(*r);
  }
  EXPECT_EQ(exchange(host.port(), post("/mcp", request("1", "tools/list"),
                                       {{"Content-Type", "application/json; charset=utf-8"}}))
                ->status,
            200);
}

TEST(HttpRules, AcceptOfNeitherJsonNorSseIs406) {
  HttpHost host({tools()});
  auto r =
      exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Accept", "text/html"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 406);
  expect_refusal_body(*r);
  // Lenient where the spec is: no Accept, */*, or JSON alone are served.
  for (const char* accept : {"", "*/*", "application/json"}) {
    auto ok = exchange(host.port(), post("/mcp", request("1", "tools/list"), {{"Accept", accept}}));
    EXPECT_EQ(ok->status, 200) << accept;
  }
}

TEST(HttpRules, UnknownMethodIs404WithMethodNotFound) {
  HttpHost host({tools()});
  auto r = exchange(host.port(), post("/mcp", request("7", "no/such")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_TRUE(is_error_response(r->body, -32601, "7")) << r->body;
}

TEST(HttpRules, UnparsableBodyIs400WithParseError) {
  HttpHost host({tools()});
  auto r = exchange(host.port(), post("/mcp", "{not json"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(is_error_response(r->body, -32700, std::nullopt)) << r->body;
}

// A tool that fails is a result (200); an unknown tool is Invalid params, which is 400 as
// the spec requires for a request without its _meta (the same code).
TEST(HttpRules, ToolErrorsAre200AndInvalidParams400) {
  HttpHost host({tools()});
  auto failed = exchange(host.port(), post("/mcp", call_request("1", "fail")));
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, 200);
  EXPECT_TRUE(is_call_result(failed->body, true, "1")) << failed->body;
  auto unknown = exchange(host.port(), post("/mcp", call_request("2", "no_such_tool")));
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
  EXPECT_TRUE(is_error_response(unknown->body, -32602, "2")) << unknown->body;
  auto no_meta =
      exchange(host.port(), post("/mcp", R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})",
                                 {{"MCP-Protocol-Version", "2026-07-28"}}));
  ASSERT_TRUE(no_meta);
  EXPECT_EQ(no_meta->status, 400) << no_meta->body;
}

TEST(HttpRules, KeepAliveServesSeveralRequestsOnOneConnection) {
  HttpHost host({tools()});
  Client c(host.port());
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(c.send(post(
        "/mcp", call_request(std::to_string(i), "echo", R"({"n":)" + std::to_string(i) + "}"))));
    auto r = c.read_response();
    ASSERT_TRUE(r) << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_TRUE(is_call_result(r->body, false, std::to_string(i))) << r->body;
  }
  // Pipelined: both sent before either answer is read; answered in order.
  ASSERT_TRUE(c.send(post("/mcp", request("10", "tools/list")) +
                     post("/mcp", request("11", "tools/list"))));
  auto first = c.read_response(), second = c.read_response();
  ASSERT_TRUE(first && second);
  EXPECT_NE(first->body.find("\"id\":10,"), std::string::npos);
  EXPECT_NE(second->body.find("\"id\":11,"), std::string::npos);
}

// A request of 2026-07-28 (no sessions there) is served statelessly whatever session it
// names; sessions of 2025-11-25 are in http_legacy_session_test.cc.
TEST(HttpRules, SessionIdAndLastEventIdAreIgnoredAndNeverMintedForModernRequests) {
  HttpHost host({tools()});
  auto r = exchange(host.port(), post("/mcp", request("1", "tools/list"),
                                      {{"Mcp-Session-Id", "abc"}, {"Last-Event-ID", "5"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->has("mcp-session-id"));
}

// A legacy client (TypeScript SDK v1 and most hosted clients) starts with initialize over
// POST; it is answered with a session id, which its later requests send back (2025-11-25
// Streamable HTTP "Session Management"; tests/http/http_legacy_session_test.cc).
TEST(HttpRules, LegacyInitializeOpensASession) {
  HttpHost host({tools()});
  auto r = exchange(
      host.port(),
      post(
          "/mcp",
          R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",)"
          R"("capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}})",
          {{"MCP-Protocol-Version", ""}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  auto d = parse(r->body);
  ASSERT_TRUE(d.IsObject() && d.HasMember("result")) << r->body;
  EXPECT_STREQ(d["result"]["protocolVersion"].GetString(), "2025-06-18");
  EXPECT_EQ(r->header("mcp-session-id").size(), 32u);
}

// A metadata header sent twice is one comma-joined value: it matches no body value, so an
// intermediary reading one copy and the host reading another cannot disagree on a request
// that passes.
TEST(HttpRules, RepeatedMetadataHeaderIsAMismatch) {
  HttpHost host({tools()});
  const std::string body = request("1", "tools/list");
  std::string bytes = post("/mcp", body);
  // post() mirrors Mcp-Method: tools/list; a first copy before it names another method
  // (read alone, the last copy would pass).
  bytes.insert(bytes.find("\r\n") + 2, "Mcp-Method: tools/call\r\n");
  auto r = exchange(host.port(), bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_TRUE(is_error_response(r->body, -32020, std::string("1"))) << r->body;
}

// An HTTP/1.0 client cannot read a chunked event stream: its call's progress is left out and
// the response comes as JSON with a length.
TEST(HttpRules, Http10ClientGetsJsonNotAStream) {
  HttpHost host({tools()});
  std::string bytes = post("/mcp", call_request("2", "progress", "{}", R"("progressToken":1)"));
  bytes.replace(bytes.find("HTTP/1.1"), 8, "HTTP/1.0");
  auto r = exchange(host.port(), bytes);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_FALSE(r->has("transfer-encoding"));
  EXPECT_TRUE(is_call_result(r->body, false, "2")) << r->body;
}

}  // namespace
}  // namespace mcpsh::testing::http
