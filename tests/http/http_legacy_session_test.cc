// Sessions of MCP 2025-11-25 over Streamable HTTP: a successful initialize opens one
// (Mcp-Session-Id), the session's requests are served with the capabilities it declared, and
// a tool that asks sends its question as a request of the host's own on the call's event
// stream; the client answers on another POST of the same session. Unknown ids are 404; an
// answer from another session, or from none, leaves the question open.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

constexpr const char* kVersion = "2025-11-25";

constexpr const char* kTools = R"BASH(#!/usr/bin/env bash
# Says hello to whoever the user names.
tool_greet() {
  local answer
  answer=$(mcp_elicit name "Your name?" '{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}') || { echo "no name given"; return 1; }
  echo "hello $(jq -r .name <<<"$answer")"
}
# The same, as a task.
# @task
tool_greet_later() { tool_greet "$@"; }
# Reports the session's log level by logging at each one.
tool_log() { mcp_log debug "at debug"; mcp_log error "at error"; echo logged; }
)BASH";

struct Fixture {
  exec::ScratchDir dir;
  std::string script = dir / "tools.sh";
  Fixture() { std::ofstream(script) << kTools; }
};

std::string request(const std::string& id, const std::string& method, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params +
         "}";
}

// A POST of the session `session` ("" for none), as a 2025-11-25 client sends it.
std::string in_session(const std::string& session, const std::string& body,
                       const std::string& accept = "application/json, text/event-stream") {
  Headers headers{{"MCP-Protocol-Version", kVersion}, {"Accept", accept}};
  if (!session.empty()) headers.emplace_back("Mcp-Session-Id", session);
  return post("/mcp", body, headers);
}

// initialize declaring `capabilities`; the session id it opened ("" when none).
std::string initialize(int port, const std::string& capabilities) {
  auto r = http::exchange(
      port,
      in_session("", request("1", "initialize",
                             R"({"protocolVersion":"2025-11-25","capabilities":)" + capabilities +
                                 R"(,"clientInfo":{"name":"t","version":"1"}})")));
  if (!r || r->status != 200) {
    ADD_FAILURE() << "initialize: " << (r ? r->body : "no response");
    return "";
  }
  return r->header("mcp-session-id");
}

// The id of the host's elicitation/create request on a call's stream, once it arrived.
std::string question_id(Client& call) {
  if (!call.wait_for("elicitation/create")) return "";
  std::smatch m;
  const std::string& seen = call.received();
  if (!std::regex_search(seen, m,
                         std::regex(R"re("id":("[^"]+"|[0-9]+),"method":"elicitation/create")re")))
    return "";
  return m[1];
}

std::string answer(const std::string& id, const std::string& name) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"result":{"action":"accept","content":{"name":")" +
         name + R"("}}})";
}

std::string call_text(const Response& r) {
  auto events = sse_data(r.body);
  auto d = parse_strict(r.header("content-type") == "text/event-stream"
                            ? (events.empty() ? "{}" : events.back())
                            : r.body);
  if (!d.IsObject() || !d.HasMember("result")) return "(no result) " + r.body;
  return d["result"]["content"][0]["text"].GetString();
}

TEST(HttpLegacySession, InitializeOpensASessionThatLaterRequestsName) {
  Fixture f;
  HttpHost host({f.script});
  const std::string id = initialize(host.port(), R"({"elicitation":{}})");
  EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{32}"))) << id;
  EXPECT_NE(id, initialize(host.port(), "{}")) << "each initialize opens a session of its own";
  auto listed = http::exchange(host.port(), in_session(id, request("2", "tools/list", "{}")));
  ASSERT_TRUE(listed);
  EXPECT_EQ(listed->status, 200) << listed->body;
  EXPECT_NE(listed->body.find("\"greet\""), std::string::npos) << listed->body;
  EXPECT_FALSE(listed->has("mcp-session-id")) << "only initialize opens one";
}

TEST(HttpLegacySession, AnUnknownSessionIs404) {
  Fixture f;
  HttpHost host({f.script});
  auto r = http::exchange(host.port(), in_session("0123456789abcdef0123456789abcdef",
                                                  request("2", "tools/list", "{}")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("no session"), std::string::npos) << r->body;
}

TEST(HttpLegacySession, AToolAsksOnTheCallsStreamAndTheAnswerComesOnAnotherPost) {
  Fixture f;
  HttpHost host({f.script});
  const std::string session = initialize(host.port(), R"({"elicitation":{}})");
  ASSERT_FALSE(session.empty());
  Client call(host.port());
  ASSERT_TRUE(call.send(
      in_session(session, request("7", "tools/call", R"({"name":"greet","arguments":{}})"))));
  const std::string asked = question_id(call);
  ASSERT_FALSE(asked.empty()) << call.received();
  EXPECT_NE(call.received().find(R"("message":"Your name?")"), std::string::npos);

  // From another session, and from none: ignored, the question stays open.
  const std::string other = initialize(host.port(), R"({"elicitation":{}})");
  for (const std::string& wrong : {other, std::string()}) {
    auto r = http::exchange(host.port(), in_session(wrong, answer(asked, "Mallory")));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 202);
  }
  auto r = http::exchange(host.port(), in_session(session, answer(asked, "Ada")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 202);
  auto result = call.read_response();
  ASSERT_TRUE(result) << call.received();
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(call_text(*result), "hello Ada");
}

// A task's POST has been answered: its run's question would have nowhere to go, so the
// task fails at once rather than waiting for its timeout.
TEST(HttpLegacySession, ATaskInASessionIsNotAsked) {
  Fixture f;
  HttpHost host({f.script});
  const std::string session = initialize(host.port(), R"({"elicitation":{},"tasks":{}})");
  auto made = http::exchange(
      host.port(),
      in_session(session,
                 request("4", "tools/call", R"({"name":"greet_later","arguments":{},"task":{}})")));
  ASSERT_TRUE(made);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(made->body, m, std::regex(R"re("taskId":"([^"]+)")re")))
      << made->body;
  const auto began = std::chrono::steady_clock::now();
  auto result = http::exchange(
      host.port(),
      in_session(session, request("5", "tasks/result", R"({"taskId":")" + m[1].str() + R"("})")));
  ASSERT_TRUE(result);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(20));
  EXPECT_NE(result->body.find("not for a task"), std::string::npos) << result->body;
}

// A request that started before logging/setLevel does not undo it when it ends.
TEST(HttpLegacySession, TheLogLevelSetLastHolds) {
  Fixture f;
  HttpHost host({f.script});
  const std::string session = initialize(host.port(), R"({"elicitation":{}})");
  auto set = [&](const std::string& id, const std::string& level) {
    auto r = http::exchange(
        host.port(),
        in_session(session, request(id, "logging/setLevel", R"({"level":")" + level + R"("})")));
    ASSERT_TRUE(r && r->status == 200) << (r ? r->body : "no response");
  };
  set("1", "error");
  Client slow(host.port());
  ASSERT_TRUE(slow.send(
      in_session(session, request("2", "tools/call", R"({"name":"greet","arguments":{}})"))));
  const std::string asked = question_id(slow);  // running, and waiting
  ASSERT_FALSE(asked.empty());
  set("3", "debug");
  auto answered = http::exchange(host.port(), in_session(session, answer(asked, "Ada")));
  ASSERT_TRUE(answered && answered->status == 202);
  auto ended = slow.read_response();  // the call that began at level error answers now
  ASSERT_TRUE(ended);
  EXPECT_EQ(call_text(*ended), "hello Ada");
  auto logged = http::exchange(
      host.port(),
      in_session(session, request("4", "tools/call", R"({"name":"log","arguments":{}})")));
  ASSERT_TRUE(logged);
  EXPECT_NE(logged->body.find("at debug"), std::string::npos) << logged->body;
}

TEST(HttpLegacySession, NoQuestionGoesWhereItCannotBeAnswered) {
  Fixture f;
  HttpHost host({f.script});
  const std::string call = request("3", "tools/call", R"({"name":"greet","arguments":{}})");
  // A session whose client declared no elicitation; a stateless request; and a client of a
  // session that takes JSON only, so that nothing but the response reaches it.
  const std::string without = initialize(host.port(), "{}");
  const std::string with = initialize(host.port(), R"({"elicitation":{}})");
  for (const std::string& bytes : {in_session(without, call), in_session("", call),
                                   in_session(with, call, "application/json")}) {
    auto r = http::exchange(host.port(), bytes);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->body.find("elicitation/create"), std::string::npos) << r->body;
    EXPECT_NE(r->body.find(R"("isError":true)"), std::string::npos) << r->body;
  }
}

}  // namespace
}  // namespace mcpsh::testing::http
