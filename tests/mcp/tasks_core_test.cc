// The tasks extension in the protocol core (task_methods.cc), with a FakeRunner and a
// manual clock: when a call becomes a task (mcp_task, or --task-after to the millisecond),
// what its run then reports (progress as the status message, the end as the task's state,
// questions as inputRequests), how long an ended task is kept, and that a cancel and a
// re-run go through the runner. The same rules are tested end to end in tests/e2e/tasks_test.cc.
#include <gtest/gtest.h>

#include "core_harness.h"

namespace mcpsh::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kTasks = R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})";
constexpr const char* kTasksAndElicitation =
    R"({"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}})";

discovery::Catalog task_catalog() {
  discovery::Catalog c;
  discovery::ToolEntry job{"job", "/scripts/t.sh",
                           R"({"name":"job","inputSchema":{"type":"object"}})"};
  job.task = discovery::TaskSupport::kOptional;
  c.tools.push_back(job);
  return c;
}

// A ProtocolCore serving task_catalog(), as CoreHarness does test_catalog().
struct TaskHarness {
  explicit TaskHarness(mcp::CoreOptions options = {})
      : core(std::make_unique<mcp::ProtocolCore>(catalog, runner, options, time, log)) {}
  discovery::Catalog catalog = task_catalog();
  FakeRunner runner;
  ManualWakeups time;
  diagnostics::Log log{"", diagnostics::Level::kOff};
  std::unique_ptr<mcp::ProtocolCore> core;
  std::shared_ptr<RecordingConnection> client = std::make_shared<RecordingConnection>();
  int sent = 0;

  // Sends a modern request from client "c" declaring `capabilities`; returns its id.
  std::string send(const std::string& method, const std::string& params,
                   const std::string& capabilities = kTasks, const std::string& meta_extra = "") {
    const std::string id = std::to_string(++sent);
    core->handle(client,
                 request(id, method,
                         params + (params.empty() ? "" : ",") +
                             R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                             R"("io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},)"
                             R"("io.modelcontextprotocol/clientCapabilities":)" +
                             capabilities + (meta_extra.empty() ? "" : "," + meta_extra) + "}"));
    return id;
  }
  std::string call(const std::string& capabilities = kTasks, const std::string& meta_extra = "") {
    return send("tools/call", R"("name":"job","arguments":{})", capabilities, meta_extra);
  }
  // The lines answering request `id` (responses only).
  std::vector<std::string> answers(const std::string& id) const {
    std::vector<std::string> out;
    for (const auto& l : client->lines)
      if (method_of(l).empty() && id_of(l) == id) out.push_back(l);
    return out;
  }
  // The one answer to `id`, parsed (an empty object, and a failure, when there is not one).
  rapidjson::Document answer(const std::string& id) const {
    auto lines = answers(id);
    EXPECT_EQ(lines.size(), 1u) << "answers to " << id;
    return parse(lines.size() == 1 ? lines[0] : "{}");
  }
  // The result of tasks/get for `task`, or the error response.
  rapidjson::Document get(const std::string& task) {
    return answer(send("tasks/get", R"("taskId":")" + task + "\""));
  }
  std::string status(const std::string& task) {
    auto d = get(task);
    return d.HasMember("result") ? d["result"]["status"].GetString() : "<error>";
  }
  std::string task_id(const std::string& call_id) {
    auto d = answer(call_id);
    EXPECT_TRUE(d.HasMember("result")) << "no result for " << call_id;
    if (!d.HasMember("result")) return "";
    EXPECT_STREQ(d["result"]["resultType"].GetString(), "task");
    return d["result"]["taskId"].GetString();
  }
};

mcp::CoreOptions options(milliseconds task_after, milliseconds task_ttl = seconds(3600)) {
  mcp::CoreOptions o;
  o.task_after = task_after;
  o.task_ttl = task_ttl;
  return o;
}

TEST(TasksCore, ACallBecomesATaskWhenTaskAfterHasPassedAndItsRunGoesOn) {
  TaskHarness h(options(milliseconds(1000)));
  const std::string call = h.call();
  ASSERT_TRUE(h.time.armed());
  h.time.advance(milliseconds(999));
  EXPECT_TRUE(h.client->lines.empty());
  h.time.advance(milliseconds(1));
  const std::string task = h.task_id(call);
  // The same run goes on: nothing restarted, nothing cancelled.
  ASSERT_EQ(h.runner.runs.size(), 1u);
  EXPECT_FALSE(h.runner.runs[0].cancelled);
  EXPECT_EQ(h.status(task), "working");
  // Its end is the task's, not a second answer to the call.
  h.runner.exit(0, 0, "made it");
  EXPECT_EQ(h.answers(call).size(), 1u);
  auto done = h.get(task);
  EXPECT_STREQ(done["result"]["status"].GetString(), "completed");
  EXPECT_STREQ(done["result"]["result"]["content"][0]["text"].GetString(), "made it");
}

TEST(TasksCore, ARunThatEndsOrAsksBeforeTaskAfterIsAnsweredPlainly) {
  TaskHarness h(options(milliseconds(1000)));
  const std::string quick = h.call();
  h.time.advance(milliseconds(500));
  h.runner.exit(0, 0, "quick");
  auto plain = h.answer(quick);
  EXPECT_STREQ(plain["result"]["resultType"].GetString(), "complete");
  EXPECT_FALSE(plain["result"].HasMember("taskId"));
  h.time.advance(milliseconds(5000));
  EXPECT_EQ(h.answers(quick).size(), 1u);

  // A run that has asked is ending: a later mcp_task does not make it a task.
  const std::string asking = h.call(kTasksAndElicitation);
  h.runner.event(1, execution::AskEvent{"who", "confirm", "Go on?", "", ""});
  h.runner.event(1, execution::TaskEvent{"too late"});
  h.time.advance(milliseconds(2000));
  EXPECT_TRUE(h.answers(asking).empty());
  h.runner.exit(1, 0);
  auto asked = h.answer(asking);
  EXPECT_STREQ(asked["result"]["resultType"].GetString(), "input_required");
  EXPECT_TRUE(asked["result"].HasMember("requestState"));
}

TEST(TasksCore, WithoutTheExtensionNoWakeIsArmedAndMcpTaskDoesNothing) {
  TaskHarness h(options(milliseconds(1000)));
  const std::string call = h.call("{}");
  EXPECT_FALSE(h.time.armed());
  h.runner.event(0, execution::TaskEvent{"ignored"});
  EXPECT_TRUE(h.client->lines.empty());
  h.runner.exit(0, 0, "plain");
  EXPECT_STREQ(h.answer(call)["result"]["content"][0]["text"].GetString(), "plain");
}

TEST(TasksCore, AnEndedTaskIsKeptForTheTtlFromItsEndThenDropped) {
  TaskHarness h(options(milliseconds(1000), seconds(10)));
  const std::string call = h.call();
  h.runner.event(0, execution::TaskEvent{"on it"});
  const std::string task = h.task_id(call);
  h.time.advance(milliseconds(2000));
  h.runner.exit(0, 0, "done");
  auto done = h.get(task);
  ASSERT_STREQ(done["result"]["status"].GetString(), "completed");
  // Counted from its creation: 2 s of running, then 10 s kept.
  EXPECT_EQ(done["result"]["ttlMs"].GetInt64(), 12000);
  h.time.advance(milliseconds(9999));
  EXPECT_EQ(h.status(task), "completed");
  h.time.advance(milliseconds(1));
  EXPECT_EQ(error_code(h.answers(h.send("tasks/get", R"("taskId":")" + task + "\"")).at(0)),
            -32602);
}

TEST(TasksCore, AWorkingTasksTtlCoversItsRunsDeadlineOrIsNull) {
  mcp::CoreOptions with_deadline = options(milliseconds(1000), seconds(10));
  with_deadline.limits.timeout = seconds(60);
  TaskHarness h(with_deadline);
  const std::string call = h.call();
  h.runner.event(0, execution::TaskEvent{""});
  auto created = h.answer(call);
  EXPECT_EQ(created["result"]["ttlMs"].GetInt64(), 70000);
  EXPECT_FALSE(created["result"].HasMember("statusMessage"));  // mcp_task without a message

  // A run with no deadline: ttlMs null, and the task is kept as long as it runs.
  TaskHarness endless(options(milliseconds(1000), seconds(10)));
  const std::string call2 = endless.call();
  endless.runner.event(0, execution::TaskEvent{""});
  const std::string task = endless.task_id(call2);
  EXPECT_TRUE(endless.answer(call2)["result"]["ttlMs"].IsNull());
  endless.time.advance(std::chrono::hours(48));
  EXPECT_EQ(endless.status(task), "working");
}

TEST(TasksCore, ProgressBecomesTheStatusMessageAndNoNotificationReachesTheClient) {
  TaskHarness h;
  const std::string call =
      h.call(kTasks, R"("progressToken":"tok","io.modelcontextprotocol/logLevel":"debug")");
  // Before the call is a task, its progress and logs are the client's.
  h.runner.event(0, execution::ProgressEvent{1, std::nullopt, "before"});
  h.runner.event(0, execution::LogEvent{"info", "before"});
  h.runner.event(0, execution::TaskEvent{"started"});
  const std::string task = h.task_id(call);
  auto message = [&] {
    auto d = h.get(task);
    const auto& r = d["result"];
    return r.HasMember("statusMessage") ? std::string(r["statusMessage"].GetString()) : "<none>";
  };
  EXPECT_EQ(message(), "started");
  h.runner.event(0, execution::ProgressEvent{1, std::nullopt, ""});
  EXPECT_EQ(message(), "1");
  h.runner.event(0, execution::ProgressEvent{2, 4, ""});
  EXPECT_EQ(message(), "2/4");
  h.runner.event(0, execution::ProgressEvent{3, 4, "copying"});
  EXPECT_EQ(message(), "copying (3/4)");
  h.runner.event(0, execution::ProgressEvent{2.5, 4, "back"});  // progress only increases
  EXPECT_EQ(message(), "copying (3/4)");
  h.runner.event(0, execution::LogEvent{"error", "after"});
  auto progress = with_method(h.client->lines, "notifications/progress");
  ASSERT_EQ(progress.size(), 1u);
  EXPECT_STREQ(parse(progress[0])["params"]["message"].GetString(), "before");
  auto logs = with_method(h.client->lines, "notifications/message");
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_STREQ(parse(logs[0])["params"]["data"].GetString(), "before");
}

TEST(TasksCore, CancelEndsTheRunThroughTheRunnerAndItsLateEndChangesNothing) {
  TaskHarness h;
  const std::string call = h.call();
  h.runner.event(0, execution::TaskEvent{"busy"});
  const std::string task = h.task_id(call);
  auto ack = h.answer(h.send("tasks/cancel", R"("taskId":")" + task + "\""));
  EXPECT_STREQ(ack["result"]["resultType"].GetString(), "complete");
  EXPECT_FALSE(ack["result"].HasMember("status"));
  EXPECT_TRUE(h.runner.runs[0].cancelled);
  EXPECT_EQ(h.status(task), "cancelled");
  h.runner.end_cancelled(0);
  EXPECT_EQ(h.status(task), "cancelled");
  for (const auto& line : h.client->lines) EXPECT_EQ(method_of(line), "") << line;
}

TEST(TasksCore, TheLastAnswerRunsTheToolAgainWithEveryAnswer) {
  TaskHarness h;
  const std::string call = h.call(kTasksAndElicitation);
  h.runner.event(0, execution::TaskEvent{"asking"});
  const std::string task = h.task_id(call);
  h.runner.event(0, execution::AskEvent{"a", "confirm", "A?", "", ""});
  h.runner.event(
      0, execution::AskEvent{"b", "elicit", "B?",
                             R"({"type":"object","properties":{"n":{"type":"string"}}})", ""});
  h.runner.exit(0);
  auto waiting = h.get(task);
  ASSERT_STREQ(waiting["result"]["status"].GetString(), "input_required");
  EXPECT_TRUE(waiting["result"]["inputRequests"].HasMember("a"));
  EXPECT_TRUE(waiting["result"]["inputRequests"].HasMember("b"));

  const std::string prefix = R"("taskId":")" + task + R"(","inputResponses":)";
  h.send("tasks/update", prefix + R"({"a":{"action":"accept"}})");
  EXPECT_EQ(h.runner.runs.size(), 1u) << "ran again before every question had its answer";
  auto partial = h.get(task);
  EXPECT_STREQ(partial["result"]["status"].GetString(), "input_required");
  EXPECT_FALSE(partial["result"]["inputRequests"].HasMember("a"));

  h.send("tasks/update", prefix + R"({"b":{"action":"accept","content":{"n":"x"}}})");
  ASSERT_EQ(h.runner.runs.size(), 2u);
  const auto& again = h.runner.runs[1].launch;
  EXPECT_EQ(again.arguments_json, "{}");
  EXPECT_EQ(again.input_count, 2u);
  EXPECT_NE(again.inputs.find("a\telicit\t0\t"), std::string::npos) << again.inputs;
  EXPECT_NE(again.inputs.find("b\telicit\t0\t"), std::string::npos) << again.inputs;
  EXPECT_EQ(h.status(task), "working");
  h.runner.exit(1, 0, "both");
  auto done = h.get(task);
  EXPECT_STREQ(done["result"]["status"].GetString(), "completed");
  EXPECT_STREQ(done["result"]["result"]["content"][0]["text"].GetString(), "both");
  // The call itself was answered once, with the task.
  EXPECT_EQ(h.answers(call).size(), 1u);
}

TEST(TasksCore, ACancelledTaskTakesNoAnswers) {
  TaskHarness h;
  const std::string call = h.call(kTasksAndElicitation);
  h.runner.event(0, execution::TaskEvent{""});
  const std::string task = h.task_id(call);
  h.runner.event(0, execution::AskEvent{"a", "confirm", "A?", "", ""});
  h.runner.exit(0);
  ASSERT_EQ(h.status(task), "input_required");
  h.send("tasks/cancel", R"("taskId":")" + task + "\"");
  EXPECT_EQ(h.status(task), "cancelled");
  EXPECT_FALSE(h.get(task)["result"].HasMember("inputRequests"));
  h.send("tasks/update",
         R"("taskId":")" + task + R"(","inputResponses":{"a":{"action":"accept"}})");
  EXPECT_EQ(h.runner.runs.size(), 1u);
  EXPECT_EQ(h.status(task), "cancelled");
}

}  // namespace
}  // namespace mcpsh::testing
