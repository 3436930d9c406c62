// Tasks (the tasks extension, io.modelcontextprotocol/tasks) over Streamable HTTP: a
// task outlives the POST that made it; tasks/get, tasks/update and tasks/cancel are routed
// by their taskId, which the Mcp-Name header must mirror (-32020 otherwise); refusals are
// 400 Bad Request as for any request. The rules themselves are tested on stdio in
// tests/e2e/tasks_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"
#include "task_helpers.h"

namespace mcpsh::testing::http {
namespace {

using namespace tasks;

using exec::ScratchDir;

constexpr const char* kTasks = R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})";

std::string script() { return fixture("tasks.sh"); }

// A modern request body of client "http-test" declaring `capabilities`.
std::string body(const std::string& id, const std::string& method, const std::string& params,
                 const std::string& capabilities = kTasks) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":{)" +
         (params.empty() ? "" : params + ",") +
         R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
         R"("io.modelcontextprotocol/clientInfo":{"name":"http-test","version":"1"},)"
         R"("io.modelcontextprotocol/clientCapabilities":)" +
         capabilities + "}}}";
}

std::string task_params(const std::string& id) { return R"("taskId":")" + id + "\""; }

// The JSON-RPC message of a response: the body, or the last event of a stream.
rapidjson::Document message_of(const Response& r) {
  if (r.header("content-type") == "text/event-stream") {
    auto events = sse_data(r.body);
    return parse_strict(events.empty() ? "{}" : events.back());
  }
  return parse_strict(r.body);
}

// A tasks/* request for `task_id` on a fresh connection, with Mcp-Name `name` (the task id
// as a conforming client sends it, unless a test says otherwise; "" drops the header).
std::optional<Response> task_request(int port, const std::string& method,
                                     const std::string& task_id, const std::string& extra = "",
                                     std::optional<std::string> name = std::nullopt,
                                     const std::string& capabilities = kTasks) {
  return http::exchange(
      port, post("/mcp", body(R"("t")", method, task_params(task_id) + extra, capabilities),
                 {{"Mcp-Name", name.value_or(task_id)}}));
}

// Polls tasks/get over HTTP until `done` holds (20 s at most); returns the last message.
rapidjson::Document poll(int port, const std::string& id,
                         const std::function<bool(const rapidjson::Document&)>& done) {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (;;) {
    auto r = task_request(port, "tasks/get", id);
    rapidjson::Document d = r ? message_of(*r) : parse_strict("{}");
    if (done(d) || std::chrono::steady_clock::now() >= deadline) return d;
    std::this_thread::sleep_for(20ms);
  }
}

std::string make_task(int port, const std::string& tool, const std::string& arguments) {
  auto r = http::exchange(
      port, post("/mcp",
                 body("1", "tools/call", R"("name":")" + tool + R"(","arguments":)" + arguments)));
  EXPECT_TRUE(r);
  if (!r) return "";
  EXPECT_EQ(r->status, 200) << r->body;
  auto d = message_of(*r);
  EXPECT_EQ(field(result(d), "resultType"), "task") << r->body;
  return field(result(d), "taskId");
}

TEST(HttpTasks, ATaskOutlivesThePostThatMadeItAndIsFollowedByItsId) {
  ScratchDir dir;
  HttpHost host({"--task-after", "600", script()});
  // The POST is answered with the task and its connection closes; the tool runs on.
  const std::string id =
      make_task(host.port(), "steps", R"({"dir":")" + dir.path + R"(","name":"one"})");
  ASSERT_NE(id, "<none>");
  auto working = task_request(host.port(), "tasks/get", id);
  ASSERT_TRUE(working);
  EXPECT_EQ(working->status, 200) << working->body;
  EXPECT_EQ(field(result(message_of(*working)), "status"), "working") << working->body;

  std::ofstream(dir / "release-one") << "go";
  auto done = poll(host.port(), id, [](const rapidjson::Document& d) {
    return field(result(d), "status") == "completed";
  });
  ASSERT_EQ(field(result(done), "status"), "completed") << exec::compact(done);
  EXPECT_EQ(field(result(done)["result"]["content"][0], "text"), "done one") << exec::compact(done);

  // tasks/update and tasks/cancel are routed the same way (acknowledged: it has ended).
  for (const auto& [method, extra] :
       {std::pair{"tasks/update", std::string(R"(,"inputResponses":{})")},
        std::pair{"tasks/cancel", std::string()}}) {
    auto ack = task_request(host.port(), method, id, extra);
    ASSERT_TRUE(ack);
    EXPECT_EQ(ack->status, 200) << method << " " << ack->body;
    EXPECT_EQ(field(result(message_of(*ack)), "resultType"), "complete") << ack->body;
  }
}

TEST(HttpTasks, McpNameMustBeTheTaskId) {
  ScratchDir dir;
  HttpHost host({"--task-after", "600", script()});
  const std::string id =
      make_task(host.port(), "steps", R"({"dir":")" + dir.path + R"(","name":"one"})");
  ASSERT_NE(id, "<none>");
  for (const char* method : {"tasks/get", "tasks/update", "tasks/cancel"}) {
    const std::string extra =
        std::string(method) == "tasks/update" ? R"(,"inputResponses":{})" : "";
    for (const std::string& name : {std::string("another-task"), std::string()}) {
      auto r = task_request(host.port(), method, id, extra, name);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 400) << method << " Mcp-Name '" << name << "'";
      EXPECT_TRUE(is_error_response(r->body, -32020, std::string(R"("t")"))) << r->body;
    }
  }
  // The refused cancels cancelled nothing.
  auto still = task_request(host.port(), "tasks/get", id);
  ASSERT_TRUE(still);
  EXPECT_EQ(field(result(message_of(*still)), "status"), "working") << still->body;
  std::ofstream(dir / "release-one") << "go";
  poll(host.port(), id,
       [](const rapidjson::Document& d) { return field(result(d), "status") == "completed"; });
}

TEST(HttpTasks, RefusalsAreBadRequests) {
  HttpHost host({"--task-after", "600", script()});
  const std::string id = make_task(host.port(), "quick", "{}");
  ASSERT_NE(id, "<none>");
  auto undeclared = task_request(host.port(), "tasks/get", id, "", std::nullopt, "{}");
  ASSERT_TRUE(undeclared);
  EXPECT_EQ(undeclared->status, 400);
  EXPECT_TRUE(is_error_response(undeclared->body, -32021, std::string(R"("t")")))
      << undeclared->body;
  auto unknown = task_request(host.port(), "tasks/get", "no-such-task");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
  EXPECT_TRUE(is_error_response(unknown->body, -32602, std::string(R"("t")"))) << unknown->body;
  // A tool that runs only as a task, called without the extension.
  auto required = http::exchange(
      host.port(),
      post("/mcp", body("2", "tools/call", R"("name":"only_task","arguments":{})", "{}")));
  ASSERT_TRUE(required);
  EXPECT_EQ(required->status, 400);
  EXPECT_TRUE(is_error_response(required->body, -32021, std::string("2"))) << required->body;
}

}  // namespace
}  // namespace mcpsh::testing::http
