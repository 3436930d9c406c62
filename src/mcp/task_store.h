#pragma once
// The tasks of the tasks extension (io.modelcontextprotocol/tasks, ADR 0016): a tool call
// that answered its request with a task goes on in the background, and its client polls
// tasks/get for it. The store keeps each task's state and what a run of it again needs;
// the core (task_methods.cc) drives them.
//
// Contract:
//  - Ids are unguessable (asking::unguessable_id) and a task is found only by the client
//    that made it (its owner, the client's name): another client gets "not found".
//  - Bounded: at most `capacity` tasks. A task that is not working expires `retention`
//    after its last change (its reported ttlMs says when, counted from its creation) and
//    is dropped by sweep(); a task with a run in progress (working, or a 2025-11-25 task
//    waiting for an answer) is never dropped: its run ends under its tool's timeout. When
//    the store is full, create() drops the task that ended longest ago, and refuses
//    (nullptr) only when none has ended. An ended task keeps its outcome, not its inputs.
//  - Terminal states (completed, failed, cancelled) never change.
//  - Single-threaded (the core's thread).
#include <rapidjson/document.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "asking/answers.h"
#include "asking/round_state.h"
#include "execution/tool_launch.h"
#include "mcp/connection.h"
#include "mcp/exchange.h"
#include "mcp/offering.h"

namespace mcpsh::mcp {

enum class TaskStatus { kWorking, kInputRequired, kCompleted, kFailed, kCancelled };
const char* task_status_name(TaskStatus status);
bool is_terminal(TaskStatus status);

struct Task {
  std::string id;
  std::string owner;  // the client's name
  TaskStatus status = TaskStatus::kWorking;
  std::string status_message;
  std::chrono::system_clock::time_point created, updated;  // wall clock: createdAt, lastUpdatedAt
  Clock::time_point created_steady;
  // When the task may be dropped (not while it is working), and the ttlMs that says so
  // (nullopt: null, a working task whose run has no deadline).
  Clock::time_point expires;
  std::optional<std::chrono::milliseconds> ttl;
  // Once ended: what the request would have been answered with, the result object or
  // (outcome_error) the JSON-RPC error object. At 2025-11-25 a tool's isError result is a
  // failed task with a result.
  std::string outcome_json;
  bool outcome_error = false;
  // input_required: the questions not answered yet, key -> request object (compact JSON).
  std::map<std::string, std::string> input_requests;

  // What a run of it again needs (after tasks/update answers its questions): the request
  // as it came (its meta, id), the call as planned, what was served then, the answers so far.
  ConnectionPtr connection;  // where its runs answer: the task itself (task_methods.cc)
  Exchange exchange;         // exchange.meta.legacy: a task of 2025-11-25
  // 2025-11-25: where the call came from (the run's notifications and questions go there,
  // and notifications/tasks/status), and the tasks/result requests waiting for its end.
  std::weak_ptr<Connection> origin;
  bool client_token = true;  // 2025-11-25: its progress token is the client's (else its own)
  struct Waiter {
    ConnectionPtr connection;
    Exchange exchange;
  };
  std::vector<Waiter> waiters;
  std::shared_ptr<const Offering> offering;
  const RegisteredTool* tool = nullptr;
  std::shared_ptr<const execution::ToolLaunch> launch;  // the extension's only (runs again)
  std::chrono::milliseconds timeout{0};                 // of a run (0: none)
  // A run of it is queued or running: the task is kept whatever its status (a 2025-11-25
  // task waiting for an answer still has its process).
  bool running = false;
  asking::RoundBinding round;
  asking::Answers answers;
  std::string confirm;
};

class TaskStore {
 public:
  TaskStore(std::size_t capacity, std::chrono::milliseconds retention)
      : capacity_(capacity), retention_(retention) {}

  // A new working task of `owner`, or nullptr when the store is full.
  Task* create(const std::string& owner, Clock::time_point now);
  // No task can be made now: the store is full of tasks that have not ended.
  bool full(Clock::time_point now);
  // The task ended: what only another run needs is let go.
  static void ended(Task& task);
  // The task `id` if `owner` made it and it has not been dropped; else nullptr.
  Task* find(const std::string& id, const std::string& owner);
  // The task `id` whoever made it (the core's own bookkeeping).
  Task* get(const std::string& id);
  // The task changed status (or message): it is stamped, and its expiry set from `now`.
  // `limit`: for a working task, how long its run may still take (0: no deadline).
  void touch(Task& task, Clock::time_point now,
             std::chrono::milliseconds limit = std::chrono::milliseconds(0));
  // The tasks that have not ended (working or waiting for input).
  std::vector<Task*> live();
  // The tasks of `owner`, oldest first (tasks/list).
  std::vector<const Task*> of(const std::string& owner) const;
  // Drops the tasks that have expired by `now`.
  void sweep(Clock::time_point now);
  std::size_t size() const { return tasks_.size(); }
  std::chrono::milliseconds retention() const { return retention_; }

 private:
  std::size_t capacity_;
  std::chrono::milliseconds retention_;
  std::map<std::string, std::unique_ptr<Task>> tasks_;
};

// How a task is shown. kCreated: a CreateTaskResult of the extension (flat, with
// resultType "task" added by the caller); kDetailed: tasks/get and notifications/tasks of
// the extension, with inputRequests, result or error as its status has them; kLegacy: the
// Task of 2025-11-25 (ttl and pollInterval, nothing of its outcome).
enum class TaskView { kCreated, kDetailed, kLegacy };
// taskId, status, statusMessage, createdAt, lastUpdatedAt, ttlMs (ttl), pollIntervalMs
// (pollInterval) and what `view` adds.
void render_task(const Task& task, TaskView view, std::chrono::milliseconds poll_interval,
                 rapidjson::Value& into, rapidjson::Document::AllocatorType& allocator);

// ISO 8601 in UTC with milliseconds, e.g. 2026-12-02T13:05:09.123Z.
std::string iso8601(std::chrono::system_clock::time_point t);

}  // namespace mcpsh::mcp
