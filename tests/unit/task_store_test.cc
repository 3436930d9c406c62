// mcp::TaskStore and render_task: the tasks of the tasks extension (io.modelcontextprotocol/
// tasks) as kept and as shown. Times are given, never read: no sleeping.
#include "mcp/task_store.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <chrono>
#include <set>
#include <string>

namespace mcpsh::mcp {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kStart{std::chrono::hours(1)};

std::string compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

rapidjson::Document rendered(const Task& task, bool detailed,
                             milliseconds poll = milliseconds(500)) {
  rapidjson::Document d(rapidjson::kObjectType);
  render_task(task, detailed ? TaskView::kDetailed : TaskView::kCreated, poll, d, d.GetAllocator());
  return d;
}

// The member names of an object, in order, comma-separated.
std::string members(const rapidjson::Value& v) {
  std::string out;
  for (const auto& m : v.GetObject())
    out += (out.empty() ? "" : ",") + std::string(m.name.GetString());
  return out;
}

TEST(TaskStore, ANewTaskIsWorkingWithAnUnguessableIdAndTheRetentionAsTtl) {
  TaskStore store(10, seconds(60));
  Task* task = store.create("alice", kStart);
  ASSERT_NE(task, nullptr);
  EXPECT_EQ(task->status, TaskStatus::kWorking);
  EXPECT_EQ(task->owner, "alice");
  EXPECT_EQ(task->created, task->updated);
  EXPECT_EQ(task->created_steady, kStart);
  ASSERT_TRUE(task->ttl);
  EXPECT_EQ(*task->ttl, seconds(60));
  EXPECT_EQ(task->id.size(), 22u) << task->id;
  for (char c : task->id)
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << task->id;
  std::set<std::string> ids{task->id};
  for (int i = 0; i < 9; ++i) ids.insert(store.create("alice", kStart)->id);
  EXPECT_EQ(ids.size(), 10u) << "ids repeat";
  EXPECT_EQ(store.size(), 10u);
}

TEST(TaskStore, ATaskIsFoundOnlyByItsOwner) {
  TaskStore store(10, seconds(60));
  Task* task = store.create("alice", kStart);
  const std::string id = task->id;
  EXPECT_EQ(store.find(id, "alice"), task);
  EXPECT_EQ(store.find(id, "bob"), nullptr);
  EXPECT_EQ(store.find(id, ""), nullptr);
  EXPECT_EQ(store.find("no-such-task", "alice"), nullptr);
  EXPECT_EQ(store.get(id), task);  // the core's own look-up ignores the owner
  EXPECT_EQ(store.get("no-such-task"), nullptr);
  // An anonymous client's tasks are those of the anonymous owner.
  Task* anonymous = store.create("", kStart);
  EXPECT_EQ(store.find(anonymous->id, ""), anonymous);
  EXPECT_EQ(store.find(anonymous->id, "alice"), nullptr);
}

TEST(TaskStore, AWorkingTasksTtlCoversItsRunAndNullMeansNoDeadline) {
  TaskStore store(10, seconds(60));
  Task* task = store.create("a", kStart);
  store.touch(*task, kStart + seconds(5), seconds(30));
  ASSERT_TRUE(task->ttl);
  // From its creation: 5 s gone, 30 s the run may still take, then 60 s kept.
  EXPECT_EQ(*task->ttl, seconds(95));
  EXPECT_EQ(task->expires, kStart + seconds(95));
  store.touch(*task, kStart + seconds(6));  // a run with no deadline
  EXPECT_FALSE(task->ttl);
  EXPECT_TRUE(rendered(*task, false)["ttlMs"].IsNull());
  // Ended: kept for the retention from now.
  task->status = TaskStatus::kCompleted;
  store.touch(*task, kStart + seconds(10), seconds(30));
  ASSERT_TRUE(task->ttl);
  EXPECT_EQ(*task->ttl, seconds(70));
  EXPECT_EQ(task->expires, kStart + seconds(70));
  EXPECT_GE(task->updated, task->created);
}

TEST(TaskStore, SweepDropsEndedOrWaitingTasksAtTheirExpiryAndNeverAWorkingOne) {
  TaskStore store(10, seconds(60));
  Task* done = store.create("a", kStart);
  Task* waiting = store.create("a", kStart);
  Task* running = store.create("a", kStart);
  const std::string done_id = done->id, waiting_id = waiting->id, running_id = running->id;
  done->status = TaskStatus::kCompleted;
  store.touch(*done, kStart);
  waiting->status = TaskStatus::kInputRequired;
  store.touch(*waiting, kStart + seconds(10));
  store.touch(*running, kStart, seconds(1));

  store.sweep(kStart + seconds(60) - milliseconds(1));
  EXPECT_EQ(store.size(), 3u);
  store.sweep(kStart + seconds(60));
  EXPECT_EQ(store.get(done_id), nullptr);
  EXPECT_NE(store.get(waiting_id), nullptr);
  store.sweep(kStart + seconds(70));
  EXPECT_EQ(store.get(waiting_id), nullptr);
  // Long past its expiry, a working task stays: its run has not ended.
  store.sweep(kStart + std::chrono::hours(24));
  EXPECT_NE(store.get(running_id), nullptr);
  EXPECT_EQ(store.size(), 1u);
}

TEST(TaskStore, AFullStoreDropsTheTaskThatEndedLongestAgoAndNeverALiveOne) {
  TaskStore store(3, seconds(60));
  Task* first = store.create("a", kStart);
  Task* second = store.create("b", kStart);
  ASSERT_NE(store.create("b", kStart), nullptr);
  EXPECT_TRUE(store.full(kStart));
  EXPECT_EQ(store.create("a", kStart), nullptr);
  EXPECT_EQ(store.size(), 3u);
  // Two end; the one that ended first makes room, before its retention is over.
  second->status = TaskStatus::kCompleted;
  store.touch(*second, kStart + seconds(1));
  first->status = TaskStatus::kFailed;
  store.touch(*first, kStart + seconds(2));
  const std::string first_id = first->id, second_id = second->id;
  EXPECT_FALSE(store.full(kStart + seconds(3)));
  ASSERT_NE(store.create("a", kStart + seconds(3)), nullptr);
  EXPECT_EQ(store.get(second_id), nullptr);
  EXPECT_NE(store.get(first_id), nullptr);
  EXPECT_EQ(store.size(), 3u);
  // An ended task whose run is still there (a 2025-11-25 task cancelled while its process
  // ends) is not dropped either.
  first->running = true;
  EXPECT_TRUE(store.full(kStart + seconds(4)));
  EXPECT_EQ(store.create("a", kStart + seconds(4)), nullptr);
  // Working tasks are never evicted to make room, however old.
  first->running = false;
  ASSERT_NE(store.create("a", kStart + std::chrono::hours(48)), nullptr);
  EXPECT_EQ(store.create("a", kStart + std::chrono::hours(48)), nullptr);
}

TEST(TaskStore, ATaskWithARunIsNeverSwept) {
  TaskStore store(4, seconds(1));
  Task* waiting = store.create("a", kStart);
  // A 2025-11-25 task waiting for an answer: not working, but its process waits.
  waiting->status = TaskStatus::kInputRequired;
  waiting->running = true;
  store.touch(*waiting, kStart);
  store.sweep(kStart + std::chrono::hours(1));
  EXPECT_EQ(store.size(), 1u);
  waiting->running = false;
  store.sweep(kStart + std::chrono::hours(1));
  EXPECT_EQ(store.size(), 0u);
}

TEST(TaskStore, StatusNamesAndTerminalStates) {
  EXPECT_STREQ(task_status_name(TaskStatus::kWorking), "working");
  EXPECT_STREQ(task_status_name(TaskStatus::kInputRequired), "input_required");
  EXPECT_STREQ(task_status_name(TaskStatus::kCompleted), "completed");
  EXPECT_STREQ(task_status_name(TaskStatus::kFailed), "failed");
  EXPECT_STREQ(task_status_name(TaskStatus::kCancelled), "cancelled");
  EXPECT_FALSE(is_terminal(TaskStatus::kWorking));
  EXPECT_FALSE(is_terminal(TaskStatus::kInputRequired));
  EXPECT_TRUE(is_terminal(TaskStatus::kCompleted));
  EXPECT_TRUE(is_terminal(TaskStatus::kFailed));
  EXPECT_TRUE(is_terminal(TaskStatus::kCancelled));
}

// A task as each status shows it; `detailed` adds what tasks/get and notifications/tasks
// carry (inputRequests, result, error), which a CreateTaskResult has not.
class RenderTask : public ::testing::Test {
 protected:
  RenderTask() : store(10, seconds(60)), task(*store.create("a", kStart)) {
    task.created = std::chrono::system_clock::time_point(milliseconds(1764680709123));
    task.updated = task.created + milliseconds(2500);
    task.ttl = milliseconds(3660000);
  }
  TaskStore store;
  Task& task;
};

TEST_F(RenderTask, Working) {
  task.status_message = "step (2/3)";
  auto d = rendered(task, true, milliseconds(750));
  EXPECT_EQ(compact(d), R"({"taskId":")" + task.id +
                            R"x(","status":"working","statusMessage":"step (2/3)",)x"
                            R"("createdAt":"2025-12-02T13:05:09.123Z",)"
                            R"("lastUpdatedAt":"2025-12-02T13:05:11.623Z","ttlMs":3660000,)"
                            R"("pollIntervalMs":750})");
  task.status_message.clear();
  EXPECT_FALSE(rendered(task, true).HasMember("statusMessage"));
}

TEST_F(RenderTask, InputRequiredShowsEveryOutstandingRequestOnlyWhenDetailed) {
  task.status = TaskStatus::kInputRequired;
  task.input_requests["b"] = R"({"method":"roots/list","params":{}})";
  task.input_requests["a"] =
      R"({"method":"elicitation/create","params":{"mode":"form","message":"A?"}})";
  auto d = rendered(task, true);
  EXPECT_EQ(members(d), "taskId,status,createdAt,lastUpdatedAt,ttlMs,pollIntervalMs,inputRequests");
  EXPECT_EQ(compact(d["inputRequests"]),
            R"({"a":{"method":"elicitation/create","params":{"mode":"form","message":"A?"}},)"
            R"("b":{"method":"roots/list","params":{}}})");
  EXPECT_FALSE(rendered(task, false).HasMember("inputRequests"));
}

TEST_F(RenderTask, CompletedCarriesTheResultAndNoPollInterval) {
  task.status = TaskStatus::kCompleted;
  task.outcome_json = R"({"content":[{"type":"text","text":"done"}],"isError":true})";
  auto d = rendered(task, true);
  EXPECT_EQ(members(d), "taskId,status,createdAt,lastUpdatedAt,ttlMs,result");
  EXPECT_EQ(compact(d["result"]), task.outcome_json);
  EXPECT_EQ(members(rendered(task, false)), "taskId,status,createdAt,lastUpdatedAt,ttlMs");
}

TEST_F(RenderTask, FailedCarriesTheError) {
  task.status = TaskStatus::kFailed;
  task.status_message = "Missing required client capability";
  task.outcome_json = R"({"code":-32021,"message":"Missing required client capability"})";
  auto d = rendered(task, true);
  EXPECT_EQ(members(d), "taskId,status,statusMessage,createdAt,lastUpdatedAt,ttlMs,error");
  EXPECT_EQ(compact(d["error"]), task.outcome_json);
  EXPECT_FALSE(rendered(task, false).HasMember("error"));
}

TEST_F(RenderTask, CancelledIsJustTheTask) {
  task.status = TaskStatus::kCancelled;
  task.input_requests["left"] = R"({"method":"roots/list","params":{}})";
  task.outcome_json = R"({"content":[]})";
  EXPECT_EQ(members(rendered(task, true)), "taskId,status,createdAt,lastUpdatedAt,ttlMs");
}

TEST(Iso8601, UtcWithMilliseconds) {
  using std::chrono::system_clock;
  EXPECT_EQ(iso8601(system_clock::time_point()), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso8601(system_clock::time_point(milliseconds(1764680709123))),
            "2025-12-02T13:05:09.123Z");
  EXPECT_EQ(iso8601(system_clock::time_point(milliseconds(951782400007))),
            "2000-02-29T00:00:00.007Z");
  // Below a millisecond is cut, not rounded.
  EXPECT_EQ(iso8601(system_clock::time_point(std::chrono::microseconds(999999))),
            "1970-01-01T00:00:00.999Z");
}

}  // namespace
}  // namespace mcpsh::mcp
