// The tasks of MCP 2025-11-25 over Streamable HTTP: a legacy client (MCP-Protocol-Version:
// 2025-11-25, no modern _meta; served statelessly) asks for a task with params.task, follows
// it with tasks/get (tasks/list is -32601 there), gets its result from tasks/result (which holds
// its POST until the task ends) and may cancel it. A question the tool asks cannot reach a
// stateless client: the run ends with an isError result that says so. The rules themselves are
// tested on stdio in tests/e2e/legacy_tasks_test.cc.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "http_client.h"
#include "task_helpers.h"

namespace mcpsh::testing::http {
namespace {

using namespace tasks;

using exec::ScratchDir;

constexpr const char* kVersion = "2025-11-25";
constexpr const char* kRelatedTask = "io.modelcontextprotocol/related-task";

std::string script() { return fixture("tasks.sh"); }

std::string body(const std::string& id, const std::string& method, const std::string& params) {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":)" + params +
         "}";
}

// A legacy POST: the body without modern _meta, the revision in MCP-Protocol-Version.
std::string legacy_post(const std::string& id, const std::string& method,
                        const std::string& params) {
  return post("/mcp", body(id, method, params), {{"MCP-Protocol-Version", kVersion}});
}

std::string task_params(const std::string& id) { return R"({"taskId":")" + id + R"("})"; }

std::string call_params(const std::string& tool, const std::string& arguments,
                        const std::string& task = "{}") {
  return R"({"name":")" + tool + R"(","arguments":)" + arguments +
         (task.empty() ? "" : R"(,"task":)" + task) + "}";
}

// The JSON-RPC message of a response: the body, or the last event of a stream.
rapidjson::Document message_of(const Response& r) {
  if (r.header("content-type") == "text/event-stream") {
    auto events = sse_data(r.body);
    return parse_strict(events.empty() ? "{}" : events.back());
  }
  return parse_strict(r.body);
}

std::string related_task(const rapidjson::Value& holder) {
  const auto& related = at(at(holder, "_meta"), kRelatedTask);
  return related.IsNull() ? "" : exec::compact(related);
}

// One legacy request on a fresh connection; its status and message.
struct Answer {
  int status = 0;
  rapidjson::Document message;
};
Answer ask(int port, const std::string& method, const std::string& params,
           const std::string& id = R"("h")") {
  auto r = http::exchange(port, legacy_post(id, method, params));
  EXPECT_TRUE(r) << method << " got no response";
  Answer a;
  if (!r) return a;
  a.status = r->status;
  a.message = message_of(*r);
  return a;
}

// Asks for a task and returns its id ("<none>" and a failure when the answer is no task).
std::string make_task(int port, const std::string& tool, const std::string& arguments) {
  auto a = ask(port, "tools/call", call_params(tool, arguments), "1");
  EXPECT_EQ(a.status, 200);
  const auto& task = at(result(a.message), "task");
  EXPECT_EQ(field(task, "status"), "working") << exec::compact(a.message);
  EXPECT_FALSE(result(a.message).HasMember("resultType")) << exec::compact(a.message);
  return field(task, "taskId");
}

TEST(HttpLegacyTasks, ATaskIsPolledAndTasksResultHoldsItsPostUntilTheEnd) {
  ScratchDir dir;
  HttpHost host({"--task-after", "600", script()});
  auto init = ask(host.port(), "initialize",
                  R"({"protocolVersion":"2025-11-25","capabilities":{},)"
                  R"("clientInfo":{"name":"http-legacy","version":"1"}})",
                  "0");
  EXPECT_EQ(init.status, 200);
  EXPECT_EQ(exec::compact(at(at(result(init.message), "capabilities"), "tasks")),
            R"({"cancel":{},"requests":{"tools":{"call":{}}}})")
      << "no tasks/list over stateless HTTP, where requestors cannot be told apart: "
      << exec::compact(init.message);

  const std::string id =
      make_task(host.port(), "steps", R"({"dir":")" + dir.path + R"(","name":"one"})");
  ASSERT_NE(id, "<none>");
  auto working = ask(host.port(), "tasks/get", task_params(id));
  EXPECT_EQ(working.status, 200);
  EXPECT_EQ(field(result(working.message), "status"), "working") << exec::compact(working.message);
  EXPECT_FALSE(result(working.message).HasMember("result")) << exec::compact(working.message);

  // tasks/result on a connection of its own: its POST is answered once the task has ended,
  // with the call's result.
  Client waiter(host.port());
  ASSERT_TRUE(waiter.send(legacy_post(R"("wait")", "tasks/result", task_params(id))));
  // Every legacy client over HTTP is the same requestor: no list of its tasks.
  auto listed = ask(host.port(), "tasks/list", "{}");
  EXPECT_NE(exec::compact(listed.message).find(R"("code":-32601)"), std::string::npos)
      << exec::compact(listed.message);

  std::ofstream(dir / "release-one") << "go";
  auto answered = waiter.read_response();
  ASSERT_TRUE(answered) << "tasks/result got no answer";
  EXPECT_EQ(answered->status, 200) << answered->body;
  auto outcome = message_of(*answered);
  EXPECT_EQ(exec::id_of(outcome), R"("wait")");
  EXPECT_EQ(first_text(result(outcome)), "done one") << answered->body;
  EXPECT_FALSE(result(outcome).HasMember("isError")) << answered->body;
  EXPECT_EQ(related_task(result(outcome)), R"({"taskId":")" + id + R"("})") << answered->body;

  auto done = ask(host.port(), "tasks/get", task_params(id));
  EXPECT_EQ(field(result(done.message), "status"), "completed") << exec::compact(done.message);
}

TEST(HttpLegacyTasks, AFailingToolFailsTheTaskAndAQuestionCannotBeAsked) {
  HttpHost host({"--task-after", "600", script()});
  const std::string broken = make_task(host.port(), "broken", "{}");
  ASSERT_NE(broken, "<none>");
  auto failed = ask(host.port(), "tasks/result", task_params(broken));
  EXPECT_EQ(failed.status, 200);
  EXPECT_TRUE(at(result(failed.message), "isError").IsTrue()) << exec::compact(failed.message);
  EXPECT_EQ(field(result(ask(host.port(), "tasks/get", task_params(broken)).message), "status"),
            "failed");
  // Over stateless HTTP the host cannot ask a legacy client: the run ends with an isError
  // result that says so, and the task fails.
  const std::string asking = make_task(host.port(), "greet_later", "{}");
  ASSERT_NE(asking, "<none>");
  auto outcome = ask(host.port(), "tasks/result", task_params(asking));
  EXPECT_EQ(outcome.status, 200);
  EXPECT_TRUE(at(result(outcome.message), "isError").IsTrue()) << exec::compact(outcome.message);
  EXPECT_NE(first_text(result(outcome.message)).find("can be asked only in the session"), std::string::npos)
      << exec::compact(outcome.message);
  EXPECT_EQ(field(result(ask(host.port(), "tasks/get", task_params(asking)).message), "status"),
            "failed");
}

TEST(HttpLegacyTasks, CancelAndRefusals) {
  ScratchDir dir;
  const std::string tag = exec::unique_tag("http-legacy-cancel");
  exec::TagCleanup cleanup(tag);
  HttpHost host({"--task-after", "600", script()});
  const std::string id =
      make_task(host.port(), "forever", R"({"dir":")" + dir.path + R"(","tag":")" + tag + "\"}");
  ASSERT_NE(id, "<none>");
  ASSERT_TRUE(exec::wait_file(dir / "pids"));
  pid_t shell = -1, child = -1;
  std::ifstream(dir / "pids") >> shell >> child;
  ASSERT_GT(shell, 0);
  ASSERT_GT(child, 0);

  auto cancelled = ask(host.port(), "tasks/cancel", task_params(id));
  EXPECT_EQ(cancelled.status, 200);
  EXPECT_EQ(field(result(cancelled.message), "status"), "cancelled")
      << exec::compact(cancelled.message);
  EXPECT_TRUE(exec::wait_gone(shell)) << "the tool's bash outlived the cancel";
  EXPECT_TRUE(exec::wait_gone(child)) << "the tool's child outlived the cancel";
  EXPECT_TRUE(wait_no_processes(tag).empty());

  auto again = ask(host.port(), "tasks/cancel", task_params(id));
  EXPECT_EQ(again.status, 400);
  EXPECT_TRUE(is_error_response(exec::compact(again.message), -32602, std::string(R"("h")")))
      << exec::compact(again.message);
  auto unknown = ask(host.port(), "tasks/get", task_params("no-such-task"));
  EXPECT_EQ(unknown.status, 400);
  EXPECT_TRUE(is_error_response(exec::compact(unknown.message), -32602, std::string(R"("h")")));
  auto forbidden = ask(host.port(), "tools/call", call_params("plain", "{}"));
  EXPECT_EQ(forbidden.status, 404);
  EXPECT_TRUE(is_error_response(exec::compact(forbidden.message), -32601, std::string(R"("h")")))
      << exec::compact(forbidden.message);
  auto required = ask(host.port(), "tools/call", call_params("only_task", "{}", ""));
  EXPECT_EQ(required.status, 404);
  EXPECT_TRUE(is_error_response(exec::compact(required.message), -32601, std::string(R"("h")")))
      << exec::compact(required.message);
}

}  // namespace
}  // namespace mcpsh::testing::http
