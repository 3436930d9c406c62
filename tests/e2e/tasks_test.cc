// Tasks (the tasks extension, io.modelcontextprotocol/tasks, with MCP 2026-07-28) end to
// end: the real binary, real bash running tests/fixtures/tasks.sh. A call of a @task tool
// from a request that declared the extension becomes a task when the tool says mcp_task or
// has run for --task-after: the request is answered with the task (resultType "task"), the
// run goes on, and the client follows it with tasks/get (or a subscriptions/listen for its
// taskIds), answers its questions with tasks/update and may end it with tasks/cancel.
//
// Nothing here waits a fixed time for the host: tools that must still be running hold until
// the test creates a file, and the test polls tasks/get (with a deadline) for what it expects.
#include <gtest/gtest.h>
#include <signal.h>

#include <cctype>
#include <chrono>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "e2e_helpers.h"
#include "exec_helpers.h"
#include "task_helpers.h"

namespace mcpsh::testing {
namespace {

using namespace tasks;

using namespace exec;
using namespace std::chrono_literals;

constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kMissingCapability = -32021;
// clientCapabilities: the extension; the extension and all a tool can ask; nothing.
constexpr const char* kTasks = R"({"extensions":{"io.modelcontextprotocol/tasks":{}}})";
constexpr const char* kTasksAndAsking = R"({"elicitation":{},"sampling":{},"roots":{},)"
                                        R"("extensions":{"io.modelcontextprotocol/tasks":{}}})";
constexpr const char* kNoTasks = "{}";
// error.data of the -32021 a request without the extension gets.
constexpr const char* kTasksRequired =
    R"({"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}})";

std::string script() { return fixture("tasks.sh"); }

// The host's arguments: `extra`, the fixture, and a --task-after long enough that a call
// becomes a task only when its tool says mcp_task, however slow the machine (the test of
// --task-after gives its own).
std::vector<std::string> host_args(std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), {"--task-after", "600"});
  extra.push_back(script());
  return extra;
}

// A modern request line of client `client` declaring `capabilities`; `params` are the
// members of params without braces ("" for none).
std::string modern_line(const std::string& id, const std::string& method, const std::string& params,
                        const std::string& capabilities, const std::string& client,
                        const std::string& extra_meta = "") {
  return R"({"jsonrpc":"2.0","id":)" + id + R"(,"method":")" + method + R"(","params":{)" +
         (params.empty() ? "" : params + ",") +
         R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)" +
         R"("io.modelcontextprotocol/clientInfo":{"name":")" + client +
         R"(","version":"1"},"io.modelcontextprotocol/clientCapabilities":)" + capabilities +
         (extra_meta.empty() ? "" : "," + extra_meta) + "}}}";
}

std::string call_params(const std::string& tool, const std::string& arguments = "{}",
                        const std::string& responses = "", const std::string& state = "") {
  std::string p = R"("name":")" + tool + R"(","arguments":)" + arguments;
  if (!responses.empty()) p += R"(,"inputResponses":)" + responses;
  if (!state.empty()) p += R"(,"requestState":")" + state + "\"";
  return p;
}

std::string task_params(const std::string& id) { return R"("taskId":")" + id + "\""; }

std::string update_params(const std::string& id, const std::string& responses) {
  return task_params(id) + R"(,"inputResponses":)" + responses;
}

// The arguments of a tool that holds: the scratch directory and the name to release.
std::string held(const ScratchDir& dir, const std::string& name) {
  return R"({"dir":")" + dir.path + R"(","name":")" + name + "\"}";
}

void release(const ScratchDir& dir, const std::string& name) {
  std::ofstream(dir / ("release-" + name)) << "go";
}

std::string accept(const std::string& content) {
  return R"({"action":"accept","content":)" + content + "}";
}

// What every task shows (a CreateTaskResult, tasks/get, notifications/tasks), with status
// `status`.
::testing::AssertionResult is_task(const rapidjson::Value& t, const std::string& status) {
  return has_task_fields(t, status, false);
}

// The empty acknowledgment of tasks/update and tasks/cancel: resultType "complete" and
// nothing else (but the _meta every modern result has).
::testing::AssertionResult is_ack(const rapidjson::Value& d) {
  const auto& r = result(d);
  if (!r.IsObject()) return ::testing::AssertionFailure() << "no result: " << compact(d);
  if (field(r, "resultType") != "complete")
    return ::testing::AssertionFailure() << "resultType is not complete: " << compact(d);
  for (const auto& m : r.GetObject()) {
    const std::string name = m.name.GetString();
    if (name != "resultType" && name != "_meta")
      return ::testing::AssertionFailure() << "the ack holds " << name << ": " << compact(d);
  }
  return ::testing::AssertionSuccess();
}

// The keys of a task's inputRequests, in order ("" when it has none).
std::string request_keys(const rapidjson::Value& task) {
  if (!task.IsObject() || !task.HasMember("inputRequests") || !task["inputRequests"].IsObject())
    return "";
  std::string keys;
  for (const auto& m : task["inputRequests"].GetObject())
    keys += (keys.empty() ? "" : ",") + std::string(m.name.GetString());
  return keys;
}

// A modern client on the host's stdio: each request gets an id of its own; the lines read
// while waiting for a response (notifications) are kept in `seen`.
class Client {
 public:
  explicit Client(HostProcess& host, std::string capabilities = kTasks,
                  std::string name = "e2e-test")
      : host_(host), capabilities_(std::move(capabilities)), name_(std::move(name)) {}

  rapidjson::Document request(const std::string& method, const std::string& params,
                              const std::string& extra_meta = "") {
    const std::string id = quoted(name_ + "-" + std::to_string(++sent_));
    const std::string line = modern_line(id, method, params, capabilities_, name_, extra_meta);
    host_.send(line);
    auto got = answer_line(host_, id, &seen);
    EXPECT_TRUE(got) << "no answer to " << line << "\n" << host_.stderr_text();
    return parse_strict(got.value_or("{}"));
  }
  rapidjson::Document call(const std::string& tool, const std::string& arguments = "{}",
                           const std::string& extra_meta = "") {
    return request("tools/call", call_params(tool, arguments), extra_meta);
  }
  rapidjson::Document get(const std::string& id) { return request("tasks/get", task_params(id)); }
  rapidjson::Document cancel(const std::string& id) {
    return request("tasks/cancel", task_params(id));
  }
  rapidjson::Document update(const std::string& id, const std::string& responses) {
    return request("tasks/update", update_params(id, responses));
  }
  // Polls tasks/get until `done` holds for its response, for up to 20 s (then the test
  // fails); returns the last response.
  rapidjson::Document poll(const std::string& id,
                           const std::function<bool(const rapidjson::Document&)>& done,
                           const std::string& what) {
    return poll_task([&] { return get(id); }, id, done, what);
  }
  rapidjson::Document poll_status(const std::string& id, const std::string& status) {
    return poll(
        id, [&](const rapidjson::Document& d) { return field(result(d), "status") == status; },
        "status " + status);
  }
  // The id of a task a call answered with ("" and a failure when it is none).
  std::string task_of(const rapidjson::Document& created) {
    EXPECT_EQ(field(result(created), "resultType"), "task") << compact(created);
    return field(result(created), "taskId") == "<none>" ? "" : field(result(created), "taskId");
  }

  std::vector<std::string> seen;

 private:
  HostProcess& host_;
  std::string capabilities_, name_;
  int sent_ = 0;
};

// ---- what the host offers ---------------------------------------------------------------

TEST(Tasks, DiscoverAdvertisesTheExtensionAndToolsCarryNoTaskSupport) {
  HostProcess host(host_args());
  Client client(host);
  auto discover = client.request("server/discover", "");
  const auto& capabilities = at(result(discover), "capabilities");
  ASSERT_TRUE(capabilities.IsObject() && capabilities.HasMember("extensions")) << compact(discover);
  const auto& extensions = capabilities["extensions"];
  ASSERT_TRUE(extensions.IsObject() && extensions.HasMember("io.modelcontextprotocol/tasks"))
      << compact(discover);
  EXPECT_EQ(compact(extensions["io.modelcontextprotocol/tasks"]), "{}");
  // No 2025-11-25 capability or taskSupport: the 2026 extension has neither.
  EXPECT_FALSE(capabilities.HasMember("tasks")) << compact(discover);
  auto list = client.request("tools/list", "");
  ASSERT_TRUE(at(result(list), "tools").IsArray()) << compact(list);
  for (const auto& tool : at(result(list), "tools").GetArray())
    EXPECT_FALSE(tool.HasMember("execution")) << compact(tool);
}

// ---- a call that becomes a task -----------------------------------------------------------

TEST(Tasks, McpTaskAnswersWithATaskThatFollowsProgressAndCompletesWithTheResult) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client client(host);
  auto created = client.call("steps", held(dir, "one"), progress_meta(R"("tok")"));
  const auto& r = result(created);
  ASSERT_EQ(field(r, "resultType"), "task") << compact(created);
  EXPECT_TRUE(is_task(r, "working"));
  const std::string id = field(r, "taskId");
  EXPECT_EQ(field(r, "statusMessage"), "started");
  ASSERT_TRUE(r.HasMember("ttlMs"));
  EXPECT_TRUE(r["ttlMs"].IsInt64()) << "the run has a deadline (--timeout): " << compact(r);
  EXPECT_TRUE(r.HasMember("pollIntervalMs")) << compact(r);
  ASSERT_TRUE(r.HasMember("content") && r["content"].IsArray()) << compact(r);
  EXPECT_TRUE(r["content"].Empty()) << compact(r);
  for (const char* detail : {"result", "error", "inputRequests", "isError", "requestState"})
    EXPECT_FALSE(r.HasMember(detail)) << detail << " in " << compact(r);

  // Found at once (a CreateTaskResult comes only once tasks/get resolves), and its progress
  // becomes its status message.
  auto first = client.get(id);
  EXPECT_TRUE(is_task(result(first), "working"));
  auto working = client.poll(
      id,
      [](const rapidjson::Document& d) {
        return field(result(d), "statusMessage") == "step (2/3)";
      },
      "statusMessage \"step (2/3)\"");
  const auto& w = result(working);
  EXPECT_TRUE(is_task(w, "working"));
  EXPECT_EQ(field(w, "resultType"), "complete");
  EXPECT_EQ(field(w, "taskId"), id);
  EXPECT_EQ(field(w, "createdAt"), field(r, "createdAt"));
  EXPECT_FALSE(w.HasMember("result") || w.HasMember("error") || w.HasMember("inputRequests"))
      << compact(w);

  release(dir, "one");
  auto done = client.poll_status(id, "completed");
  const auto& d = result(done);
  EXPECT_TRUE(is_task(d, "completed"));
  EXPECT_EQ(field(d, "resultType"), "complete");
  EXPECT_EQ(field(d, "createdAt"), field(r, "createdAt"));
  EXPECT_GE(field(d, "lastUpdatedAt"), field(d, "createdAt"));
  EXPECT_FALSE(d.HasMember("error") || d.HasMember("inputRequests")) << compact(d);
  ASSERT_TRUE(d.HasMember("result") && d["result"].IsObject()) << compact(d);
  EXPECT_EQ(first_text(d["result"]), "done one") << compact(d);
  EXPECT_FALSE(d["result"].HasMember("isError")) << compact(d);
  // Once the call became a task, its progress token heard nothing more: progress is the
  // task's status, not notifications.
  for (const auto& line : client.seen)
    EXPECT_NE(method_of(parse(line)), "notifications/progress") << line;
}

TEST(Tasks, AFailingToolCompletesWithAnIsErrorResult) {
  HostProcess host(host_args());
  Client client(host);
  const std::string id = client.task_of(client.call("broken"));
  auto done = client.poll(
      id,
      [](const rapidjson::Document& d) {
        const std::string status = field(result(d), "status");
        return status != "working" && status != "<none>";
      },
      "a terminal status");
  const auto& d = result(done);
  // An isError result is a result: completed, not failed (failed is for JSON-RPC errors).
  EXPECT_TRUE(is_task(d, "completed"));
  ASSERT_TRUE(d.HasMember("result") && d["result"].IsObject()) << compact(done);
  EXPECT_FALSE(d.HasMember("error")) << compact(done);
  ASSERT_TRUE(d["result"].HasMember("isError")) << compact(done);
  EXPECT_TRUE(d["result"]["isError"].GetBool()) << compact(done);
  EXPECT_EQ(first_text(d["result"]), "it broke") << compact(done);
}

TEST(Tasks, WithoutTheExtensionTheCallIsPlain) {
  ScratchDir dir;
  release(dir, "one");
  HostProcess host(host_args());
  Client plain(host, kNoTasks);
  auto d = plain.call("steps", held(dir, "one"));
  EXPECT_TRUE(is_call_result(compact(d), false, compact(at(d, "id")))) << compact(d);
  EXPECT_EQ(field(result(d), "resultType"), "complete") << compact(d);
  EXPECT_FALSE(result(d).HasMember("taskId")) << compact(d);
  EXPECT_EQ(first_text(result(d)), "done one");
  // The 2025-11-25 "task" param opts in to nothing: servers must ignore it.
  auto old_param = plain.request("tools/call", call_params("quick") + R"(,"task":{"ttl":60000})");
  EXPECT_EQ(first_text(result(old_param)), "quick done") << compact(old_param);
  EXPECT_FALSE(result(old_param).HasMember("taskId")) << compact(old_param);
  // Only an object declares the extension.
  Client odd(host, R"({"extensions":{"io.modelcontextprotocol/tasks":true}})");
  auto not_declared = odd.call("quick");
  EXPECT_EQ(first_text(result(not_declared)), "quick done") << compact(not_declared);
  // A tool without @task never becomes a task, whatever it says.
  Client tasks(host);
  auto untagged = tasks.call("plain");
  EXPECT_EQ(field(result(untagged), "resultType"), "complete") << compact(untagged);
  EXPECT_EQ(first_text(result(untagged)), "plain") << compact(untagged);

  // A 2025-11-25 session knows no extension: a call that does not ask for a task is plain
  // (tests/e2e/legacy_tasks_test.cc has the tasks of that revision).
  HostProcess legacy(host_args());
  initialize(legacy);
  auto r =
      ask(legacy, legacy_request("1", "tools/call", R"({"name":"quick","arguments":{}})"), "1");
  EXPECT_EQ(result_text(r), "quick done") << compact(r);
  EXPECT_FALSE(result(r).HasMember("task")) << compact(r);
}

TEST(Tasks, ARequiredTaskToolNeedsTheExtension) {
  HostProcess host(host_args());
  Client plain(host, kNoTasks);
  auto refused = plain.call("only_task");
  ASSERT_EQ(error_code(refused), kMissingCapability) << compact(refused);
  EXPECT_EQ(compact(at(at(refused, "error"), "data")), kTasksRequired);
  EXPECT_NE(field(at(refused, "error"), "message"), "<none>") << compact(refused);
  Client tasks(host);
  const std::string id = tasks.task_of(tasks.call("only_task"));
  auto done = tasks.poll_status(id, "completed");
  EXPECT_EQ(first_text(at(result(done), "result")), "ran as asked") << compact(done);
}

TEST(Tasks, AToolThatNeverSaysMcpTaskBecomesATaskAfterTaskAfter) {
  ScratchDir dir;
  {
    // Still running at --task-after: the call is answered with a task, the tool runs on.
    HostProcess host({"--task-after", "0.2", script()});
    Client client(host);
    auto created = client.call("quiet", held(dir, "slow"));
    ASSERT_EQ(field(result(created), "resultType"), "task") << compact(created);
    EXPECT_TRUE(is_task(result(created), "working"));
    const std::string id = field(result(created), "taskId");
    EXPECT_TRUE(is_task(result(client.get(id)), "working"));
    release(dir, "slow");
    auto done = client.poll_status(id, "completed");
    EXPECT_EQ(first_text(at(result(done), "result")), "quiet slow") << compact(done);
  }
  {
    // Done well before --task-after: a plain answer.
    HostProcess host({"--task-after", "30", script()});
    Client client(host);
    auto quick = client.call("quiet", R"({"name":"fast"})");
    EXPECT_EQ(field(result(quick), "resultType"), "complete") << compact(quick);
    EXPECT_EQ(first_text(result(quick)), "quiet fast") << compact(quick);
  }
  {
    // --task-after 0: a task at once, however quick the tool.
    HostProcess host({"--task-after", "0", script()});
    Client client(host);
    const std::string id = client.task_of(client.call("quiet", R"({"name":"fast"})"));
    auto done = client.poll_status(id, "completed");
    EXPECT_EQ(first_text(at(result(done), "result")), "quiet fast") << compact(done);
  }
}

// ---- questions --------------------------------------------------------------------------

TEST(Tasks, AQuestionBeforeMcpTaskIsAnsweredSynchronously) {
  HostProcess host(host_args());
  Client client(host, kTasksAndAsking);
  auto first = client.call("greet_later");
  const auto& r1 = result(first);
  ASSERT_EQ(field(r1, "resultType"), "input_required") << compact(first);
  EXPECT_FALSE(r1.HasMember("taskId")) << compact(first);
  EXPECT_EQ(request_keys(r1), "who") << compact(first);
  const std::string state = field(r1, "requestState");
  ASSERT_NE(state, "<none>") << compact(first);

  auto second = client.request(
      "tools/call",
      call_params("greet_later", "{}", R"({"who":)" + accept(R"({"name":"Ann"})") + "}", state));
  ASSERT_EQ(field(result(second), "resultType"), "task") << compact(second);
  EXPECT_TRUE(is_task(result(second), "working"));
  EXPECT_EQ(field(result(second), "statusMessage"), "greeting Ann") << compact(second);
  auto done = client.poll_status(field(result(second), "taskId"), "completed");
  EXPECT_EQ(first_text(at(result(done), "result")), "Hello, Ann!") << compact(done);
}

TEST(Tasks, QuestionsInsideATaskAreAnsweredWithTasksUpdate) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client client(host, kTasksAndAsking);
  const std::string id = client.task_of(client.call("two_questions", held(dir, "q")));
  auto asking = client.poll_status(id, "input_required");
  const auto& t = result(asking);
  EXPECT_TRUE(is_task(t, "input_required"));
  EXPECT_EQ(request_keys(t), "a,b") << compact(asking);
  EXPECT_EQ(field(at(at(t, "inputRequests"), "a"), "method"), "elicitation/create")
      << compact(asking);
  EXPECT_EQ(field(at(at(at(t, "inputRequests"), "b"), "params"), "message"), "Your name?")
      << compact(asking);
  EXPECT_FALSE(t.HasMember("requestState") || t.HasMember("result")) << compact(asking);

  // One answer of two: the task waits for the other.
  EXPECT_TRUE(is_ack(client.update(id, R"({"a":{"action":"accept"}})")));
  auto partial = client.poll(
      id, [](const rapidjson::Document& d) { return request_keys(result(d)) == "b"; },
      "inputRequests with b only");
  EXPECT_TRUE(is_task(result(partial), "input_required"));

  // The last answer: the tool runs again from the top, with both.
  EXPECT_TRUE(is_ack(client.update(id, R"({"b":)" + accept(R"({"name":"Bo"})") + "}")));
  auto done = client.poll_status(id, "completed");
  EXPECT_TRUE(is_task(result(done), "completed"));
  EXPECT_FALSE(result(done).HasMember("inputRequests")) << compact(done);
  EXPECT_EQ(first_text(at(result(done), "result")), "a: yes\nb: Bo") << compact(done);
  std::ifstream runs(dir / "runs");
  std::string line;
  int count = 0;
  while (std::getline(runs, line)) ++count;
  EXPECT_EQ(count, 2) << "the tool runs once, then once more with the answers";
}

TEST(Tasks, AnswersToNothingOutstandingAreIgnoredAndMalformedOnesRefused) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client client(host, kTasksAndAsking);
  const std::string id = client.task_of(client.call("two_questions", held(dir, "q")));
  client.poll_status(id, "input_required");
  // Keys never asked are ignored, whatever they hold.
  EXPECT_TRUE(is_ack(client.update(id, R"({"zzz":{"bad":1},"never":12,"b b":null})")));
  EXPECT_EQ(request_keys(result(client.get(id))), "a,b");
  // A malformed answer to an outstanding question is refused, and nothing is taken.
  auto bad = client.update(id, R"({"a":12,"b":)" + accept(R"({"name":"X"})") + "}");
  EXPECT_EQ(error_code(bad), kInvalidParams) << compact(bad);
  EXPECT_EQ(request_keys(result(client.get(id))), "a,b");
  for (const std::string& params :
       {task_params(id), update_params(id, "[]"), update_params(id, "null")}) {
    auto no = client.request("tasks/update", params);
    EXPECT_EQ(error_code(no), kInvalidParams) << params << "\n" << compact(no);
  }
  // An answered key is not outstanding any more: a second answer to it is ignored.
  EXPECT_TRUE(is_ack(client.update(id, R"({"a":{"action":"accept"}})")));
  client.poll(
      id, [](const rapidjson::Document& d) { return request_keys(result(d)) == "b"; },
      "inputRequests with b only");
  EXPECT_TRUE(is_ack(client.update(id, R"({"a":{"action":"decline"}})")));
  EXPECT_TRUE(is_ack(client.update(id, R"({"b":)" + accept(R"({"name":"Cy"})") + "}")));
  auto done = client.poll_status(id, "completed");
  EXPECT_EQ(first_text(at(result(done), "result")), "a: yes\nb: Cy") << compact(done);
  // An ended task takes no answers: acknowledged, and it stays as it is.
  EXPECT_TRUE(is_ack(client.update(id, R"({"b":)" + accept(R"({"name":"Dee"})") + "}")));
  auto after = client.get(id);
  EXPECT_EQ(field(result(after), "status"), "completed") << compact(after);
  EXPECT_EQ(first_text(at(result(after), "result")), "a: yes\nb: Cy") << compact(after);
}

// An answer must be of the kind its question asked: else the question would be asked
// again under a key that has had its answer.
TEST(Tasks, AnAnswerOfAnotherKindIsRefused) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client client(host, kTasksAndAsking);
  const std::string id =
      client.task_of(client.call("two_questions", R"({"dir":")" + dir.path + "\"}"));
  auto waiting = client.poll_status(id, "input_required");
  ASSERT_TRUE(at(result(waiting), "inputRequests").HasMember("a")) << compact(waiting);
  auto wrong = client.update(id, R"({"a":{"roots":[]}})");
  EXPECT_EQ(error_code(wrong), kInvalidParams) << compact(wrong);
  auto still = client.get(id);
  EXPECT_TRUE(is_task(result(still), "input_required")) << compact(still);
  EXPECT_TRUE(at(result(still), "inputRequests").HasMember("a")) << compact(still);
}

TEST(Tasks, AQuestionTheClientCannotAnswerFailsTheTask) {
  HostProcess host(host_args());
  Client client(host, R"({"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}})");
  const std::string id = client.task_of(client.call("needs_roots"));
  auto failed = client.poll_status(id, "failed");
  const auto& t = result(failed);
  EXPECT_TRUE(is_task(t, "failed"));
  EXPECT_FALSE(t.HasMember("result")) << compact(failed);
  ASSERT_TRUE(t.HasMember("error") && t["error"].IsObject()) << compact(failed);
  EXPECT_EQ(error_code(t), kMissingCapability) << compact(failed);
  EXPECT_NE(field(at(t, "error"), "message"), "<none>") << compact(failed);
  EXPECT_EQ(compact(at(at(t, "error"), "data")), R"({"requiredCapabilities":{"roots":{}}})")
      << compact(failed);
  EXPECT_NE(field(t, "statusMessage"), "<none>") << "a failed task should say why";
}

// ---- cancel -------------------------------------------------------------------------------

TEST(Tasks, CancelEndsTheRunAndItsProcessGroup) {
  ScratchDir dir;
  const std::string tag = unique_tag("tasks-cancel");
  TagCleanup cleanup(tag);
  HostProcess host(host_args());
  Client client(host);
  const std::string id = client.task_of(
      client.call("forever", R"({"dir":")" + dir.path + R"(","tag":")" + tag + "\"}"));
  ASSERT_TRUE(wait_file(dir / "pids"));
  pid_t shell = -1, child = -1;
  std::ifstream(dir / "pids") >> shell >> child;
  ASSERT_GT(shell, 0);
  ASSERT_GT(child, 0);
  EXPECT_EQ(::kill(shell, 0), 0);
  EXPECT_EQ(::kill(child, 0), 0);

  auto ack = client.cancel(id);
  EXPECT_TRUE(is_ack(ack));
  // Cancelled at once, not eventually.
  auto cancelled = client.get(id);
  EXPECT_TRUE(is_task(result(cancelled), "cancelled"));
  EXPECT_FALSE(result(cancelled).HasMember("result") || result(cancelled).HasMember("error"))
      << compact(cancelled);
  // The tool's process group is gone: its bash and the child it left sleeping.
  EXPECT_TRUE(wait_gone(shell)) << "the tool's bash outlived the cancel";
  EXPECT_TRUE(wait_gone(child)) << "the tool's child outlived the cancel";
  EXPECT_TRUE(wait_no_processes(tag).empty());
  // The end of the run changes nothing, and a second cancel is acknowledged alike.
  EXPECT_TRUE(is_ack(client.cancel(id)));
  auto later = client.get(id);
  EXPECT_TRUE(is_task(result(later), "cancelled")) << compact(later);
}

TEST(Tasks, CancelOfAnEndedTaskIsAcknowledgedAndChangesNothing) {
  HostProcess host(host_args());
  Client client(host);
  const std::string id = client.task_of(client.call("quick"));
  auto done = client.poll_status(id, "completed");
  EXPECT_TRUE(is_ack(client.cancel(id)));
  auto after = client.get(id);
  EXPECT_TRUE(is_task(result(after), "completed"));
  EXPECT_EQ(first_text(at(result(after), "result")), "quick done") << compact(after);
  EXPECT_EQ(field(result(after), "lastUpdatedAt"), field(result(done), "lastUpdatedAt"));
}

// The status message: a later mcp_task sets a new one, progress numbers stay exact, and
// a silent task gets no heartbeat (which would replace the tool's message).
TEST(Tasks, TheStatusMessageIsTheToolsOwn) {
  ScratchDir dir;
  HostProcess host(host_args({"--heartbeat", "0.1"}));
  Client client(host);
  const std::string id = client.task_of(client.call("messages", held(dir, "m")));
  // Progress numbers are shown exactly (not 1.5e+06).
  auto progress = client.poll(
      id,
      [](const rapidjson::Document& d) {
        return field(result(d), "statusMessage") == "bytes (1500000/3000000)";
      },
      "the progress message");
  // Several heartbeat periods later the message is still the tool's own.
  std::this_thread::sleep_for(500ms);
  auto later = client.get(id);
  EXPECT_EQ(field(result(later), "statusMessage"), "bytes (1500000/3000000)") << compact(later);
  // A later mcp_task sets a new message.
  release(dir, "m-1");
  auto second = client.poll(
      id,
      [](const rapidjson::Document& d) { return field(result(d), "statusMessage") == "second"; },
      "the second message");
  EXPECT_TRUE(is_task(result(second), "working")) << compact(second);
  release(dir, "m");
  auto done = client.poll_status(id, "completed");
  EXPECT_EQ(first_text(at(result(done), "result")), "messages m") << compact(done);
}

// On stdio no client can poll a task once the input is closed: its run ends, and the host
// exits without waiting for it.
TEST(Tasks, ClosingTheInputEndsTheRunsOfTasks) {
  ScratchDir dir;
  const std::string tag = unique_tag("tasks-eof");
  TagCleanup cleanup(tag);
  HostProcess host(host_args());
  Client client(host);
  client.task_of(client.call("forever", R"({"dir":")" + dir.path + R"(","tag":")" + tag + "\"}"));
  ASSERT_TRUE(wait_file(dir / "pids"));
  pid_t shell = -1, child = -1;
  std::ifstream(dir / "pids") >> shell >> child;
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(20s), std::optional<int>(0)) << host.stderr_text();
  EXPECT_TRUE(wait_gone(shell)) << "the task's bash outlived the host";
  EXPECT_TRUE(wait_gone(child)) << "the task's child outlived the host";
  EXPECT_TRUE(wait_no_processes(tag).empty());
}

// ---- refusals -----------------------------------------------------------------------------

TEST(TasksErrors, TaskMethodsNeedTheExtensionEvenForUnknownIds) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client owner(host);
  const std::string id = owner.task_of(owner.call("steps", held(dir, "one")));
  Client plain(host, kNoTasks);  // the same client name, without the extension
  for (const std::string& task : {id, std::string("no-such-task")}) {
    for (const auto& [method, params] :
         {std::pair{"tasks/get", task_params(task)},
          std::pair{"tasks/update", update_params(task, R"({"a":{"action":"accept"}})")},
          std::pair{"tasks/cancel", task_params(task)}}) {
      auto d = plain.request(method, params);
      ASSERT_EQ(error_code(d), kMissingCapability) << method << "\n" << compact(d);
      EXPECT_EQ(compact(at(at(d, "error"), "data")), kTasksRequired) << compact(d);
    }
  }
  // The refused cancel cancelled nothing.
  EXPECT_TRUE(is_task(result(owner.get(id)), "working"));
  release(dir, "one");
  owner.poll_status(id, "completed");
}

TEST(TasksErrors, UnknownIdsAndOtherClientsTasksAreNotFound) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client a(host, kTasks, "a");
  Client b(host, kTasks, "b");
  const std::string id = a.task_of(a.call("steps", held(dir, "one")));
  for (const auto& [who, task] : {std::pair{&a, std::string("no-such-task")}, std::pair{&b, id}}) {
    for (const auto& [method, params] :
         {std::pair{"tasks/get", task_params(task)},
          std::pair{"tasks/update", update_params(task, R"({"a":{"action":"accept"}})")},
          std::pair{"tasks/cancel", task_params(task)}}) {
      auto d = who->request(method, params);
      EXPECT_EQ(error_code(d), kInvalidParams) << method << " " << task << "\n" << compact(d);
    }
  }
  // b's cancel did not reach a's task.
  EXPECT_TRUE(is_task(result(a.get(id)), "working"));
  release(dir, "one");
  auto done = a.poll_status(id, "completed");
  EXPECT_EQ(first_text(at(result(done), "result")), "done one") << compact(done);
  EXPECT_EQ(error_code(b.get(id)), kInvalidParams);
}

TEST(TasksErrors, TheTaskIdMustBeAString) {
  HostProcess host(host_args());
  Client client(host);
  for (const char* method : {"tasks/get", "tasks/update", "tasks/cancel"})
    for (const std::string& params :
         {std::string(), std::string(R"("taskId":7)"), std::string(R"("taskId":null)"),
          std::string(R"("taskId":["x"],"inputResponses":{})")}) {
      auto d = client.request(method, params);
      EXPECT_EQ(error_code(d), kInvalidParams) << method << " " << params << "\n" << compact(d);
    }
}

TEST(TasksErrors, TasksListAndTasksResultDoNotExist) {
  HostProcess host(host_args());
  Client client(host);
  const std::string id = client.task_of(client.call("quick"));
  client.poll_status(id, "completed");
  for (const auto& [method, params] :
       {std::pair{"tasks/list", std::string()}, std::pair{"tasks/result", task_params(id)}}) {
    auto d = client.request(method, params);
    EXPECT_EQ(error_code(d), kMethodNotFound) << method << "\n" << compact(d);
  }
}

// ---- limits -------------------------------------------------------------------------------

TEST(TasksLimits, AnEndedTaskIsDroppedAfterTaskTtl) {
  ScratchDir dir;
  HostProcess host(host_args({"--task-ttl", "1"}));
  Client client(host);
  const std::string id = client.task_of(client.call("steps", held(dir, "one")));
  // The end is heard on a listen stream, not polled: a second's window may pass unpolled on
  // a loaded machine.
  host.send(modern_line(R"("listen")", "subscriptions/listen",
                        R"("notifications":{"taskIds":[")" + id + R"("]})", kTasks, "e2e-test"));
  ASSERT_TRUE(await_line(host, [](const rapidjson::Document& d) {
    return method_of(d) == "notifications/subscriptions/acknowledged";
  })) << host.stderr_text();
  release(dir, "one");
  auto completed = await_line(host, [](const rapidjson::Document& d) {
    return method_of(d) == "notifications/tasks" && field(at(d, "params"), "status") == "completed";
  });
  ASSERT_TRUE(completed) << host.stderr_text();
  auto ended = parse(*completed);
  EXPECT_TRUE(at(at(ended, "params"), "ttlMs").IsInt64()) << *completed;
  auto gone = client.poll(
      id, [](const rapidjson::Document& d) { return error_code(d) == kInvalidParams; },
      "not found (-32602)");
  EXPECT_EQ(error_code(gone), kInvalidParams) << compact(gone);
  EXPECT_EQ(error_code(client.cancel(id)), kInvalidParams);
}

TEST(TasksLimits, AtMaxTasksAFurtherCallRunsPlainly) {
  ScratchDir dir;
  HostProcess host(host_args({"--max-tasks", "1", "--task-ttl", "1"}));
  Client client(host);
  const std::string first = client.task_of(client.call("steps", held(dir, "one")));
  // The store is full while the first is kept: the second says mcp_task all the same and
  // is answered plainly once it ends.
  release(dir, "two");
  auto second = client.call("steps", held(dir, "two"));
  EXPECT_EQ(field(result(second), "resultType"), "complete") << compact(second);
  EXPECT_FALSE(result(second).HasMember("taskId")) << compact(second);
  EXPECT_EQ(first_text(result(second)), "done two") << compact(second);
  EXPECT_TRUE(is_task(result(client.get(first)), "working"));
  // Once the first has ended and been dropped, a call becomes a task again.
  release(dir, "one");
  client.poll(
      first, [](const rapidjson::Document& d) { return error_code(d) == kInvalidParams; },
      "dropped");
  release(dir, "three");
  const std::string third = client.task_of(client.call("steps", held(dir, "three")));
  EXPECT_NE(third, first);
}

// ---- subscriptions/listen -----------------------------------------------------------------

TEST(TasksListen, ListenersGetTheWholeTaskAsItChanges) {
  ScratchDir dir;
  HostProcess host(host_args());
  Client a(host, kTasks, "a");
  Client b(host, kTasks, "b");
  const std::string mine = a.task_of(a.call("steps", held(dir, "one")));
  a.poll(
      mine,
      [](const rapidjson::Document& d) {
        return field(result(d), "statusMessage") == "step (2/3)";
      },
      "step (2/3)");
  const std::string theirs = b.task_of(b.call("quick"));
  b.poll_status(theirs, "completed");

  host.send(modern_line(
      R"("listen-1")", "subscriptions/listen",
      R"("notifications":{"taskIds":[")" + mine + R"(","no-such-task",")" + theirs + R"("]})",
      kTasks, "a"));
  std::vector<std::string> before;
  auto ack_line = await_line(
      host,
      [](const rapidjson::Document& d) {
        return method_of(d) == "notifications/subscriptions/acknowledged";
      },
      &before);
  ASSERT_TRUE(ack_line) << host.stderr_text();
  EXPECT_TRUE(before.empty()) << "the acknowledgment comes first: " << before.front();
  auto ack = parse(*ack_line);
  // Only the client's own task that is still kept.
  EXPECT_EQ(compact(at(at(ack, "params"), "notifications")), R"({"taskIds":[")" + mine + R"("]})")
      << *ack_line;
  EXPECT_EQ(compact(at(at(at(ack, "params"), "_meta"), "io.modelcontextprotocol/subscriptionId")),
            R"("listen-1")");

  release(dir, "one");
  std::vector<std::string> notes;
  auto completed = await_line(
      host,
      [](const rapidjson::Document& d) {
        return method_of(d) == "notifications/tasks" &&
               field(at(d, "params"), "status") == "completed";
      },
      &notes);
  ASSERT_TRUE(completed) << host.stderr_text();
  notes.push_back(*completed);
  bool saw_step3 = false;
  for (const auto& line : notes) {
    auto d = parse(line);
    // Nothing but task notifications on a task's stream: no progress, no log.
    ASSERT_EQ(method_of(d), "notifications/tasks") << line;
    const auto& p = at(d, "params");
    EXPECT_TRUE(is_task(p, field(p, "status")));
    EXPECT_EQ(field(p, "taskId"), mine) << line;
    EXPECT_FALSE(p.HasMember("resultType")) << line;
    EXPECT_EQ(compact(at(at(p, "_meta"), "io.modelcontextprotocol/subscriptionId")),
              R"("listen-1")")
        << line;
    if (field(p, "status") == "working" && field(p, "statusMessage") == "step (3/3)")
      saw_step3 = true;
  }
  EXPECT_TRUE(saw_step3) << "the status change before the end was not sent";
  // The last is the task as tasks/get shows it, result and all.
  auto last = parse(notes.back());
  const auto& n = at(last, "params");
  EXPECT_EQ(first_text(at(n, "result")), "done one") << notes.back();
  auto got = a.get(mine);
  for (const char* member : {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs", "result"})
    EXPECT_EQ(compact(at(n, member)), compact(at(result(got), member))) << member;
}

TEST(TasksListen, ListeningForTasksNeedsTheExtension) {
  HostProcess host(host_args());
  Client client(host);
  const std::string id = client.task_of(client.call("quick"));
  client.poll_status(id, "completed");
  Client plain(host, kNoTasks);
  auto d =
      plain.request("subscriptions/listen", R"("notifications":{"taskIds":[")" + id + R"("]})");
  ASSERT_EQ(error_code(d), kMissingCapability) << compact(d);
  EXPECT_EQ(compact(at(at(d, "error"), "data")), kTasksRequired);
  auto bad = client.request("subscriptions/listen", R"("notifications":{"taskIds":")" + id + "\"}");
  EXPECT_EQ(error_code(bad), kInvalidParams) << compact(bad);
}

// ---- options ------------------------------------------------------------------------------

TEST(TasksOptions, OutOfRangeValuesAreUsageErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{"--task-after", "3601"}, "--task-after must be between 0 and 3600 seconds"},
      {{"--task-after=-1"}, "--task-after must be between 0 and 3600 seconds"},
      {{"--task-after", "soon"}, "--task-after needs a number of seconds"},
      {{"--task-ttl", "0"}, "--task-ttl must be a whole number between 1 and 604800"},
      {{"--task-ttl", "604801"}, "--task-ttl must be a whole number between 1 and 604800"},
      {{"--task-ttl", "1.5"}, "--task-ttl must be a whole number between 1 and 604800"},
      {{"--max-tasks", "0"}, "--max-tasks must be a whole number between 1 and 100000"},
      {{"--max-tasks", "100001"}, "--max-tasks must be a whole number between 1 and 100000"},
  };
  for (const auto& c : cases) {
    auto args = c.args;
    args.push_back(script());
    auto run = run_cli(args);
    EXPECT_EQ(run.status, 2) << c.args[0] << "\n" << run.err;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
  }
  auto bounds = run_cli(
      {"list", "--task-after", "3600", "--task-ttl", "604800", "--max-tasks", "100000", script()});
  EXPECT_EQ(bounds.status, 0) << bounds.err;
  auto low =
      run_cli({"list", "--task-after", "0", "--task-ttl", "1", "--max-tasks", "1", script()});
  EXPECT_EQ(low.status, 0) << low.err;
}

}  // namespace
}  // namespace mcpsh::testing
