// Tool calls over HTTP: progress streamed as SSE then the response; a client that goes
// away cancels its call (no process left, the audit says cancelled); SIGTERM lets a call
// in flight finish and be answered, then exits 0; the audit records remote and status.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"

namespace mcpsh::testing::http {
namespace {

using exec::ScratchDir;
using exec::TagCleanup;

std::string tools() { return fixture("exec_tools.sh"); }

std::vector<rapidjson::Document> audit_records(const std::string& path) {
  std::vector<rapidjson::Document> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) records.push_back(parse(line));
  return records;
}

TEST(HttpCalls, ProgressIsStreamedAsSseEndingWithTheResponse) {
  HttpHost host({tools()});
  auto r = exchange(host.port(),
                    post("/mcp", call_request("5", "progress", "{}", R"("progressToken":"tok")")));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("content-type"), "text/event-stream");
  EXPECT_EQ(r->header("cache-control"), "no-cache");
  EXPECT_EQ(r->header("x-accel-buffering"), "no");
  EXPECT_EQ(r->header("transfer-encoding"), "chunked");
  // Each event: "event: message", one data line, a blank line.
  EXPECT_EQ(r->body.rfind("event: message\ndata: ", 0), 0u) << r->body;
  auto events = sse_data(r->body);
  ASSERT_EQ(events.size(), 4u) << r->body;  // progress 1, 2, 3 (repeats dropped), response
  for (std::size_t i = 0; i < 3; ++i) {
    auto d = parse(events[i]);
    ASSERT_TRUE(d.IsObject()) << events[i];
    EXPECT_STREQ(d["method"].GetString(), "notifications/progress");
    EXPECT_STREQ(d["params"]["progressToken"].GetString(), "tok");
  }
  EXPECT_TRUE(is_call_result(events[3], false, "5")) << events[3];
  EXPECT_EQ(r->body.substr(r->body.size() - 2), "\n\n");
}

// After a streamed answer the connection stays usable (the chunked body was ended).
TEST(HttpCalls, KeepAliveContinuesAfterAStream) {
  HttpHost host({tools()});
  Client c(host.port());
  ASSERT_TRUE(c.send(post("/mcp", call_request("1", "progress", "{}", R"("progressToken":1)"))));
  auto streamed = c.read_response();
  ASSERT_TRUE(streamed);
  EXPECT_EQ(streamed->header("content-type"), "text/event-stream");
  ASSERT_TRUE(c.send(post("/mcp", call_request("2", "echo"))));
  auto plain = c.read_response();
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->header("content-type"), "application/json");
  EXPECT_TRUE(is_call_result(plain->body, false, "2")) << plain->body;
}

// A client that takes only JSON cannot hear notifications: it gets the response alone.
TEST(HttpCalls, JsonOnlyClientGetsTheResponseWithoutNotifications) {
  HttpHost host({tools()});
  auto r = exchange(host.port(),
                    post("/mcp", call_request("1", "progress", "{}", R"("progressToken":1)"),
                         {{"Accept", "application/json"}}));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->header("content-type"), "application/json");
  EXPECT_TRUE(is_call_result(r->body, false, "1")) << r->body;
}

TEST(HttpCalls, ClientThatDisconnectsCancelsItsCall) {
  ScratchDir dir;
  const std::string audit = dir.path + "/audit.jsonl";
  const std::string tag = exec::unique_tag("http-disconnect");
  TagCleanup cleanup(tag);
  HttpHost host({"--audit-log", audit, tools()});
  {
    Client c(host.port());
    ASSERT_TRUE(c.send(post("/mcp", call_request("9", "sleeper", R"({"tag":")" + tag + "\"}",
                                                 R"("progressToken":"p")"))));
    // The tool reports "ready" once both of its sleepers run.
    ASSERT_TRUE(c.wait_for("ready ")) << c.received();
    // The second sleeper starts just after the report.
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (processes_matching(tag).size() < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(10ms);
    ASSERT_EQ(processes_matching(tag).size(), 2u);
  }  // the client closes the connection
  EXPECT_TRUE(wait_no_processes(tag, 20s).empty()) << "the tool's processes outlived the client";
  // The audit record is written when the call is dropped, after its processes are gone.
  std::optional<rapidjson::Document> record;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!record && std::chrono::steady_clock::now() < deadline) {
    for (auto& r : audit_records(audit))
      if (r.IsObject() && r.HasMember("id") && r["id"].IsInt() && r["id"].GetInt() == 9)
        record = std::move(r);
    if (!record) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(record) << "no audit record for the cancelled call";
  EXPECT_STREQ((*record)["outcome"].GetString(), "cancelled");
  EXPECT_TRUE((*record)["cancelled"].GetBool());
  EXPECT_EQ(std::string((*record)["remote"].GetString()).rfind("127.0.0.1:", 0), 0u);
}

// A client that stops reading its event stream: once 4 MiB of events wait for it, it
// counts as gone and its call is cancelled (memory stays bounded).
TEST(HttpCalls, ClientThatStopsReadingItsStreamIsCancelled) {
  ScratchDir dir;
  const std::string audit = dir.path + "/audit.jsonl";
  // A write that makes no progress for --idle-timeout ends the connection too: kept out
  // of the way, so that only the output bound can cancel the call.
  HttpHost host(
      {"--audit-log", audit, "--idle-timeout", "3600", source_dir() + "/tests/http/http_tools.sh"});
  // A small receive buffer: the kernel holds little on our side.
  Client c(host.port(), 4096);
  ASSERT_TRUE(c.send(post("/mcp", call_request("4", "chatter", "{}",
                                               R"("io.modelcontextprotocol/logLevel":"debug")"))));
  std::optional<rapidjson::Document> record;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (!record && std::chrono::steady_clock::now() < deadline) {
    for (auto& r : audit_records(audit))
      if (r.IsObject() && r.HasMember("id") && r["id"].IsInt() && r["id"].GetInt() == 4)
        record = std::move(r);
    if (!record) std::this_thread::sleep_for(20ms);
  }
  ASSERT_TRUE(record) << host.process().stderr_text();
  EXPECT_STREQ((*record)["outcome"].GetString(), "cancelled");
  EXPECT_NE(host.process().stderr_text().find("not reading its event stream"), std::string::npos);
}

TEST(HttpCalls, SigtermLetsTheCallInFlightFinishThenExits0) {
  ScratchDir dir;
  HttpHost host({"--kill-grace", "60", tools()});
  Client c(host.port());
  ASSERT_TRUE(c.send(
      post("/mcp", call_request("3", "hold", R"({"dir":")" + dir.path + R"(","name":"a"})"))));
  ASSERT_TRUE(exec::wait_file(dir.path + "/started-a"));
  host.process().signal(SIGTERM);
  // No more connections are accepted once the host logs that it is stopping.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (host.process().stderr_text().find("shutting down") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  ASSERT_NE(host.process().stderr_text().find("shutting down"), std::string::npos);
  // The call in flight is answered...
  { std::ofstream(dir.path + "/release") << "go"; }
  auto r = c.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->header("connection"), "close");
  EXPECT_TRUE(is_call_result(r->body, false, "3")) << r->body;
  EXPECT_NE(r->body.find("released a"), std::string::npos);
  // ...then the host exits 0.
  auto status = host.process().wait_exit(20s);
  ASSERT_TRUE(status);
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
}

TEST(HttpCalls, AuditRecordsRemoteAndHttpStatusAlsoForRefusals) {
  ScratchDir dir;
  const std::string audit = dir.path + "/audit.jsonl";
  {
    HttpHost host({"--audit-log", audit, tools()});
    ASSERT_EQ(exchange(host.port(), post("/mcp", call_request("1", "echo")))->status, 200);
    ASSERT_EQ(
        exchange(host.port(), post("/mcp", request("2", "tools/list"),
                                   {{"Origin", "http://evil.test"}, {"Mcp-Method", "tools/list"}}))
            ->status,
        403);
    ASSERT_EQ(exchange(host.port(), bare("GET", "/mcp"))->status, 405);
    host.process().signal(SIGTERM);
    ASSERT_TRUE(host.process().wait_exit(20s));
  }
  auto records = audit_records(audit);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_STREQ(records[0]["method"].GetString(), "tools/call");
  EXPECT_EQ(records[0]["httpStatus"].GetInt(), 200);
  EXPECT_EQ(std::string(records[0]["remote"].GetString()).rfind("127.0.0.1:", 0), 0u);
  EXPECT_STREQ(records[1]["outcome"].GetString(), "refused");
  EXPECT_STREQ(records[1]["method"].GetString(), "tools/list");
  EXPECT_EQ(records[1]["httpStatus"].GetInt(), 403);
  EXPECT_TRUE(records[1].HasMember("remote"));
  EXPECT_STREQ(records[2]["outcome"].GetString(), "refused");
  EXPECT_EQ(records[2]["httpStatus"].GetInt(), 405);
}

// A client that half-closes once its answer has begun to arrive still gets all of it: the
// end of its input is not a cancel once the response is written.
TEST(HttpCalls, HalfCloseAfterTheAnswerBeganStillGetsAllOfIt) {
  HttpHost host({"--max-output", "4M", tools()});
  Client c(host.port(), /*receive_buffer=*/4096);
  ASSERT_TRUE(c.send(post("/mcp", call_request("1", "flood", R"({"bytes":2000000})"))));
  // The head is here; most of the 2 MB body cannot be, while we do not read.
  ASSERT_TRUE(c.wait_for("HTTP/1.1 200"));
  c.shutdown_send();
  auto r = c.read_response(30s);
  ASSERT_TRUE(r) << "the answer was cut off after " << c.received().size() << " bytes";
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(is_call_result(r->body, false, "1"));
  EXPECT_GT(r->body.size(), 2000000u);
}

}  // namespace
}  // namespace mcpsh::testing::http
