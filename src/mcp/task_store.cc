#include "mcp/task_store.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "asking/sealed_state.h"

namespace mcpsh::mcp {

const char* task_status_name(TaskStatus status) {
  switch (status) {
    case TaskStatus::kWorking:
      return "working";
    case TaskStatus::kInputRequired:
      return "input_required";
    case TaskStatus::kCompleted:
      return "completed";
    case TaskStatus::kFailed:
      return "failed";
    case TaskStatus::kCancelled:
      break;
  }
  return "cancelled";
}

bool is_terminal(TaskStatus status) {
  return status == TaskStatus::kCompleted || status == TaskStatus::kFailed ||
         status == TaskStatus::kCancelled;
}

bool TaskStore::full(Clock::time_point now) {
  sweep(now);
  if (tasks_.size() < capacity_) return false;
  for (const auto& [id, task] : tasks_)
    if (is_terminal(task->status) && !task->running) return false;
  return true;
}

void TaskStore::ended(Task& task) {
  task.launch.reset();
  task.answers.clear();
  task.round = {};
  task.offering.reset();
  task.tool = nullptr;
  task.confirm.clear();
  task.input_requests.clear();
}

Task* TaskStore::create(const std::string& owner, Clock::time_point now) {
  sweep(now);
  if (tasks_.size() >= capacity_) {
    // Full: the task that ended longest ago goes (memory stays bounded; a client that
    // makes tasks faster than they expire loses the oldest results first).
    auto oldest = tasks_.end();
    for (auto it = tasks_.begin(); it != tasks_.end(); ++it)
      if (is_terminal(it->second->status) && !it->second->running &&
          (oldest == tasks_.end() || it->second->updated < oldest->second->updated))
        oldest = it;
    if (oldest == tasks_.end()) return nullptr;
    tasks_.erase(oldest);
  }
  auto task = std::make_unique<Task>();
  task->id = asking::unguessable_id();
  task->owner = owner;
  task->created = task->updated = std::chrono::system_clock::now();
  task->created_steady = now;
  task->expires = now + retention_;
  task->ttl = retention_;
  Task* made = task.get();
  tasks_[made->id] = std::move(task);
  return made;
}

Task* TaskStore::find(const std::string& id, const std::string& owner) {
  Task* task = get(id);
  return task && task->owner == owner ? task : nullptr;
}

Task* TaskStore::get(const std::string& id) {
  auto it = tasks_.find(id);
  return it == tasks_.end() ? nullptr : it->second.get();
}

void TaskStore::touch(Task& task, Clock::time_point now, std::chrono::milliseconds limit) {
  task.updated = std::chrono::system_clock::now();
  const bool working = task.status == TaskStatus::kWorking;
  task.expires = now + (working ? limit : std::chrono::milliseconds(0)) + retention_;
  task.ttl =
      std::chrono::duration_cast<std::chrono::milliseconds>(task.expires - task.created_steady);
  if (working && limit.count() == 0) task.ttl.reset();
}

std::vector<const Task*> TaskStore::of(const std::string& owner) const {
  std::vector<const Task*> out;
  for (const auto& [id, task] : tasks_)
    if (task->owner == owner) out.push_back(task.get());
  std::sort(out.begin(), out.end(), [](const Task* a, const Task* b) {
    return a->created_steady != b->created_steady ? a->created_steady < b->created_steady
                                                  : a->id < b->id;
  });
  return out;
}

std::vector<Task*> TaskStore::live() {
  std::vector<Task*> out;
  for (auto& [id, task] : tasks_)
    if (!is_terminal(task->status)) out.push_back(task.get());
  return out;
}

void TaskStore::sweep(Clock::time_point now) {
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    const Task& task = *it->second;
    if (task.status != TaskStatus::kWorking && !task.running && task.expires <= now)
      it = tasks_.erase(it);
    else
      ++it;
  }
}

std::string iso8601(std::chrono::system_clock::time_point t) {
  const auto since = t.time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(since - seconds);
  std::time_t tt = static_cast<std::time_t>(seconds.count());
  std::tm utc{};
  gmtime_r(&tt, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis.count()));
  return text;
}

void render_task(const Task& task, TaskView view, std::chrono::milliseconds poll_interval,
                 rapidjson::Value& into, rapidjson::Document::AllocatorType& a) {
  const bool legacy = view == TaskView::kLegacy;
  auto text = [&](const std::string& s) {
    return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
  };
  auto json = [&](const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str(), s.size());
    return rapidjson::Value(d, a);
  };
  into.AddMember("taskId", text(task.id), a);
  into.AddMember("status", rapidjson::StringRef(task_status_name(task.status)), a);
  if (!task.status_message.empty()) into.AddMember("statusMessage", text(task.status_message), a);
  into.AddMember("createdAt", text(iso8601(task.created)), a);
  into.AddMember("lastUpdatedAt", text(iso8601(task.updated)), a);
  const auto ttl_key = rapidjson::StringRef(legacy ? "ttl" : "ttlMs");
  if (task.ttl)
    into.AddMember(ttl_key, static_cast<std::int64_t>(task.ttl->count()), a);
  else
    into.AddMember(ttl_key, rapidjson::Value(), a);
  if (!is_terminal(task.status))
    into.AddMember(rapidjson::StringRef(legacy ? "pollInterval" : "pollIntervalMs"),
                   static_cast<std::int64_t>(poll_interval.count()), a);
  if (view != TaskView::kDetailed) return;
  if (task.status == TaskStatus::kInputRequired) {
    rapidjson::Value requests(rapidjson::kObjectType);
    for (const auto& [key, request] : task.input_requests)
      requests.AddMember(text(key), json(request), a);
    into.AddMember("inputRequests", requests, a);
  } else if (task.status == TaskStatus::kCompleted) {
    into.AddMember("result", json(task.outcome_json), a);
  } else if (task.status == TaskStatus::kFailed) {
    into.AddMember("error", json(task.outcome_json), a);
  }
}

}  // namespace mcpsh::mcp
